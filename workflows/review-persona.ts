import type { ReviewOutcome, ReviewWorkflowInput } from '../src/reviews/review-types';
import { awaitOperatorDecision } from './operator-review';

/**
 * One persona submission's review (workflow id `review-<persona id>-<submission>`): the persona stays
 * `submitted` until an operator approves (→ `published`) or rejects (→ `rejected`, with notes)
 * through the decide update; the 5-business-day timer marks it overdue meanwhile. Withdrawing the
 * persona (DELETE) cancels it.
 */
export async function reviewPersonaWorkflow(input: ReviewWorkflowInput): Promise<ReviewOutcome> {
  return awaitOperatorDecision(input);
}
