import type { ReviewDecision, ReviewKind, ReviewStatus } from './statuses';

/** The input of every review workflow (workflows/operator-review.ts). */
export interface ReviewWorkflowInput {
  /** The review id (also the workflow id): `review-<subject id>-<submission>`. */
  reviewId: string;
  kind: ReviewKind;
  subjectId: string;
  /** When the review is due (ISO 8601); past it, with no decision, it is marked overdue. */
  dueBy: string;
}

/** What an operator sends to a review workflow's `decide` update. */
export interface OperatorDecision {
  decision: ReviewDecision;
  notes?: string;
}

/** What a review workflow's decide update answers: the review's state once the decision is applied. */
export interface ReviewOutcome {
  reviewId: string;
  status: ReviewStatus;
  notes: string | null;
  decidedAt: string | null;
}

/** The review workflow's type, for starting one by name. */
export type ReviewWorkflow = (input: ReviewWorkflowInput) => Promise<ReviewOutcome>;

/** What a review workflow's `state` query answers. */
export interface ReviewState {
  status: 'waiting' | 'deciding' | 'decided' | 'withdrawn';
  overdue: boolean;
  dueBy: string;
  outcome: ReviewOutcome | null;
}
