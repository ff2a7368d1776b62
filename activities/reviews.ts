import { recordReviewTests, startReviewTestRun } from '../src/agent-tests/review-gate';
import { marketplaceReviewSubject } from '../src/marketplace/submission/review.service';
import { personaReviewSubject } from '../src/personas/persona-review.service';
import { applyReviewDecision, markReviewOverdue, type ReviewSubjects } from '../src/reviews/decisions';
import type { ReviewDecision } from '../src/reviews/statuses';
import type { ActivityDeps } from './deps';

/** How each kind of review's decision changes its subject. */
const SUBJECTS: ReviewSubjects = {
  persona: personaReviewSubject,
  marketplace_item: marketplaceReviewSubject,
};

/**
 * Operator reviews' activities: record a decision (and apply it), mark a review overdue, and a
 * persona review's test gate (start its test run once, record the run's summary). All idempotent.
 */
export function createReviewActivities(deps: ActivityDeps) {
  const { orm } = deps;
  return {
    applyReviewDecision(input: { reviewId: string; decision: ReviewDecision; notes?: string }) {
      return applyReviewDecision(orm.em.fork(), SUBJECTS, input);
    },
    markReviewOverdue(input: { reviewId: string }) {
      return markReviewOverdue(orm.em.fork(), input.reviewId);
    },
    startReviewTestRun: (input: { reviewId: string }) => startReviewTestRun(deps, input),
    recordReviewTests: (input: { reviewId: string; runId: string }) => recordReviewTests(deps, input),
  };
}
