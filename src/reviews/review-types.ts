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

/**
 * A persona review's test results (docs/personas.md "Gating the review on tests"): the run its
 * workflow ran on the submitted draft, or `status: none` when the persona had no scenarios.
 */
export interface ReviewTests {
  /** The `testrun_…` run (GET /test-runs/:id), null when there was nothing to run. */
  runId: string | null;
  status: 'none' | 'running' | 'passed' | 'failed' | 'cancelled';
  passed: number;
  failed: number;
  total: number;
  /** Each scenario that did not pass, with the reasons of its failing expectations (or its error). */
  failures: { scenarioId: string; name: string; status: 'failed' | 'error'; reasons: string[] }[];
  completedAt: string | null;
}

/** What a review workflow's `state` query answers. */
export interface ReviewState {
  /**
   * `preparing`, then `testing` while a persona review's test run runs (a decision is refused then),
   * then `waiting` for the operator.
   */
  status: 'preparing' | 'testing' | 'waiting' | 'deciding' | 'decided' | 'withdrawn';
  overdue: boolean;
  dueBy: string;
  outcome: ReviewOutcome | null;
}
