import {
  CancellationScope,
  executeChild,
  log,
  proxyActivities,
  setCurrentDetails,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ReviewOutcome } from '../src/reviews/review-types';
import { AccountIdKey, PersonaIdKey } from '../src/temporal/search-attributes';
import type { BeforeOperator } from './operator-review';
import { DATABASE_STEP_RETRY, testRunWorkflow } from './test-run';

/** The gate's steps only touch the database, and are safe to repeat. */
const records = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: DATABASE_STEP_RETRY,
});

/**
 * A persona review's test gate (docs/personas.md "Gating the review on tests"), run before the wait
 * for the operator: the persona's suite runs on the submitted draft as a child `testRunWorkflow`
 * (workflow id = the `testrun_…` run, created once for the review), a decision being refused
 * meanwhile; its summary is stored on the review. When the account requires passing tests and the
 * suite did not pass (failed, errored or was cancelled), the review is rejected at once through the
 * operator's own decision activity, the failures as its notes. Withdrawing the review cancels the run.
 */
export const runReviewTests: BeforeOperator = async ({ input, state }): Promise<ReviewOutcome | null> => {
  setCurrentDetails("Looking for the persona's test scenarios");
  const run = await records.startReviewTestRun({ reviewId: input.reviewId });
  if (!run) return null; // no scenarios ("no tests" recorded), or no longer pending
  state.status = 'testing';
  setCurrentDetails(`Running the persona's tests (${run.runId}); the operator decides once they end`);
  try {
    await executeChild(testRunWorkflow, {
      workflowId: run.runId,
      args: [run],
      // found in the Web UI like any other run of the account's persona
      typedSearchAttributes: [
        { key: AccountIdKey, value: run.accountId },
        { key: PersonaIdKey, value: run.personaId },
      ],
    });
  } catch (error) {
    if (CancellationScope.current().consideredCancelled) throw error; // the review was withdrawn
    log.warn("the review's test run did not complete; it counts as failing", {
      runId: run.runId,
      error: String(error),
    });
  }
  const { rejectNotes } = await records.recordReviewTests({ reviewId: input.reviewId, runId: run.runId });
  if (!rejectNotes) return null;
  setCurrentDetails('The tests did not pass and the account requires passing tests: rejecting');
  return records.applyReviewDecision({ reviewId: input.reviewId, decision: 'reject', notes: rejectNotes });
};
