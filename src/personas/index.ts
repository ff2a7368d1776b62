export {
  canonicalLanguage,
  type PersonaManifest,
  PersonaManifestSchema,
  validatePersonaManifest,
} from './manifest';
export {
  type AnalysisSetting,
  AnalysisSettingSchema,
  analysisWanted,
  dataSchemaValidator,
  schemaErrorLines,
} from './manifest-analysis';
export { personasNamingProvider, providerReferencesOf } from './manifest-providers';
export { type PersonaToolRef, PersonaToolRefSchema } from './manifest-tools';
export { Persona, personaManifestSql } from './persona.entity';
export { PersonaVersion } from './persona-version.entity';
export {
  personaForSession,
  type SessionPersona,
  sessionManifest,
  sessionManifestSql,
} from './versions.service';
