import {
  type AnalysisRecord,
  type AskInput,
  type AskOutcome,
  askAnalysisModel,
  recordAnalysis,
} from '../src/call-analysis/analysis-steps';
import { annotateSpan } from '../src/telemetry/tracing';
import type { ActivityDeps } from './deps';

export function createCallAnalysisActivities({ orm, config, encryptor }: ActivityDeps) {
  const knex = orm.em.getConnection().getKnex();
  return {
    /** One model answer for a post-call analysis, checked (see src/call-analysis/analysis-steps.ts). */
    askAnalysisModel(input: AskInput): Promise<AskOutcome> {
      annotateSpan({ 'voice.analysis_id': input.analysisId });
      return askAnalysisModel({ knex, config }, input);
    },
    /** The analysis's outcome and its `session.analyzed` event, recorded once. */
    recordAnalysis(input: AnalysisRecord): Promise<{ recorded: boolean }> {
      annotateSpan({ 'voice.analysis_id': input.analysisId });
      return recordAnalysis({ knex, config, encryptor }, input);
    },
  };
}
