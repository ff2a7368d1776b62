import { patched } from '@temporalio/workflow';
import type { ReviewOutcome, ReviewWorkflowInput } from '../src/reviews/review-types';
import { awaitOperatorDecision } from './operator-review';
import { runReviewTests } from './review-tests';

/**
 * One persona submission's review (workflow id `review-<persona id>-<submission>`): first the
 * persona's test suite runs on the submitted draft (workflows/review-tests.ts; with the account's
 * `requirePassingTests`, a suite that does not pass rejects it at once), then the persona stays
 * `submitted` until an operator approves (→ `published`) or rejects (→ `rejected`, with notes)
 * through the decide update; the 5-business-day timer marks it overdue meanwhile. Withdrawing the
 * persona (DELETE) cancels it.
 */
export async function reviewPersonaWorkflow(input: ReviewWorkflowInput): Promise<ReviewOutcome> {
  // reviews started before the gate (no marker in their history) go on waiting for the operator
  const tested = patched('review-runs-tests');
  return awaitOperatorDecision(input, tested ? runReviewTests : undefined);
}
