import { normalizeText } from './normalize';
import type { ExtractedDocument } from './types';

/**
 * Plain text: one section without a heading, its paragraphs (split at blank lines) kept. Plain text has no
 * reliable headings, so none are guessed; the title comes from the file name (see `extractText`).
 */
export function plainTextToDocument(text: string): ExtractedDocument {
  return { title: null, sections: [{ heading: null, level: 0, text: normalizeText(text) }] };
}
