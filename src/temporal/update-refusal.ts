import type { WorkflowUpdateFailedError } from '@temporalio/client';

/**
 * The words of a workflow's own refusal of an update (its validator or handler threw one of the
 * messages the caller knows), or null. Anything else, such as Temporal's "Workflow Update is rejected
 * because it wasn't processed by worker…", stays in the logs and never reaches a client.
 */
export function knownRefusal(error: WorkflowUpdateFailedError, known: RegExp[]): string | null {
  const message = error.cause?.message ?? '';
  return known.some((pattern) => pattern.test(message)) ? message : null;
}

/** What a review workflow itself refuses a decision for (workflows/operator-review.ts, review-marketplace-item.ts). */
export const REVIEW_REFUSALS = [
  /^The automated checks are still running/,
  /^The review's tests are still running/,
  /^This review is \w+; it takes one decision$/,
];
