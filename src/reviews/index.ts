export { reviewDueBy } from './due';
export { Review, reviewId } from './review.entity';
export type { OperatorDecision, ReviewOutcome } from './review-types';
export { cancelReviewWorkflow, startCommittedReview, startReviewWorkflow } from './review-workflows';
export { REVIEW_DECISIONS, type ReviewDecision } from './statuses';
