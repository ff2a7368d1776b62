export { reviewDueBy } from './due';
export { Review, reviewId } from './review.entity';
export { ReviewTestsSchema } from './review-tests.schemas';
export type { OperatorDecision, ReviewOutcome, ReviewTests } from './review-types';
export { PendingReviewSchema, ReviewViewSchema, reviewView } from './review-view';
export { cancelReviewWorkflow, startCommittedReview, startReviewWorkflow } from './review-workflows';
export { REVIEW_DECISIONS, type ReviewDecision } from './statuses';
