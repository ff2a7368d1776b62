export {
  canonicalLanguage,
  type PersonaManifest,
  PersonaManifestSchema,
  validatePersonaManifest,
} from './manifest';
export { Persona, personaManifestSql } from './persona.entity';
