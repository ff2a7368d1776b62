export { findCatalogVoice } from './voices.catalog';
