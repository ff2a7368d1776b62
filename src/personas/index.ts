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
export { Persona, personaManifestSql } from './persona.entity';
