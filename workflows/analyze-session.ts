import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AnalysisRecord, AskOutcome } from '../src/call-analysis/analysis-steps';

export interface AnalyzeSessionInput {
  analysisId: string;
}

export interface AnalyzeSessionResult {
  status: 'completed' | 'failed' | 'done';
  attempts: number;
}

/** Asking the model: retried for a provider that is down or busy, never for an answer that is wrong. */
const { askAnalysisModel } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});
/** Recording: only the database can fail it, and it is safe to repeat. */
const { recordAnalysis } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 20,
  },
});

/** Why asking failed, from the activity's last failure. */
function failureReason(error: ActivityFailure): string {
  const cause = error.cause;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : 'unknown failure';
}

/**
 * One post-call analysis (workflow id = the `ana_…` id): ask the model; an answer that fails the
 * checks is given back to it with its problems once; then record `completed` with the result or
 * `failed` with the reason (and `session.analyzed`). A model that cannot be asked (after the
 * activity's retries) is a failed analysis, not a failed workflow.
 */
export async function analyzeSessionWorkflow(input: AnalyzeSessionInput): Promise<AnalyzeSessionResult> {
  const { analysisId } = input;
  let attempts = 0;
  let record: AnalysisRecord;
  try {
    attempts = 1;
    let answer: AskOutcome = await askAnalysisModel({ analysisId });
    if (answer.kind === 'invalid') {
      attempts = 2;
      answer = await askAnalysisModel({
        analysisId,
        refused: { answer: answer.answer, problems: answer.problems },
      });
    }
    if (answer.kind === 'done') return { status: 'done', attempts };
    record =
      answer.kind === 'valid'
        ? { analysisId, attempts, status: 'completed', result: answer.result }
        : {
            analysisId,
            attempts,
            status: 'failed',
            error: `The model's answer was not valid twice: ${answer.problems.join('; ')}`,
          };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    record = {
      analysisId,
      attempts,
      status: 'failed',
      error: `The model could not be asked: ${failureReason(error)}`,
    };
  }
  const { recorded } = await recordAnalysis(record);
  return { status: recorded ? record.status : 'done', attempts };
}
