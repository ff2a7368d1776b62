import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type {
  OperatorDecision,
  ReviewOutcome,
  ReviewState,
  ReviewWorkflowInput,
} from '../src/reviews/review-types';
import { ReviewOverdueKey } from '../src/temporal/search-attributes';
import { decideReviewUpdate, reviewStateQuery } from './messages';

/**
 * What a review does before it waits for the operator (a persona review's tests), with the review's
 * state to move through `preparing` and `testing`: answers an outcome that ends the review (an
 * automatic rejection), or null to wait for the operator.
 */
export type BeforeOperator = (review: {
  input: ReviewWorkflowInput;
  state: ReviewState;
}) => Promise<ReviewOutcome | null>;

/** Why a decision is refused while the review's tests run (src/temporal/update-refusal.ts knows it). */
const TESTS_RUNNING = "The review's tests are still running; decide once they end";

/**
 * Refuses a decision the review cannot take now: an ApplicationFailure, which fails the update (from
 * its handler as from its validator) and not the workflow task.
 */
function refuseUnlessWaiting(state: ReviewState): void {
  const refuse = (message: string) => ApplicationFailure.create({ message, nonRetryable: true });
  if (state.status === 'testing') throw refuse(TESTS_RUNNING);
  if (state.status !== 'waiting') throw refuse(`This review is ${state.status}; it takes one decision`);
}

/**
 * The `decide` update: validated (one decision per review, none while its tests run) and applied by
 * an activity before it answers. One sent while the review prepares (milliseconds: it looks for
 * tests) waits for that to end, then is taken or refused.
 */
function handleDecisions(input: ReviewWorkflowInput, state: ReviewState): void {
  const { applyReviewDecision } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 8 },
  });
  setHandler(
    decideReviewUpdate,
    async (decision) => {
      if (state.status === 'preparing') {
        await condition(() => state.status !== 'preparing');
        refuseUnlessWaiting(state);
      }
      state.status = 'deciding';
      try {
        const outcome = await applyReviewDecision({ reviewId: input.reviewId, ...decision });
        state.outcome = outcome;
        state.status = outcome.status === 'withdrawn' ? 'withdrawn' : 'decided';
        return outcome;
      } catch (error) {
        state.status = 'waiting'; // the decision could not be recorded: the review waits for another
        throw error;
      }
    },
    {
      validator: (_decision: OperatorDecision) => {
        if (state.status !== 'preparing') refuseUnlessWaiting(state);
      },
    },
  );
}

const withdrawnOutcome = (input: ReviewWorkflowInput): ReviewOutcome => ({
  reviewId: input.reviewId,
  status: 'withdrawn',
  notes: null,
  decidedAt: null,
});

/**
 * Waits for an operator's decision on a review, keeping a durable timer until `dueBy`: when it fires
 * first, the review is marked overdue (in the database and as the `ReviewOverdue` search attribute)
 * and the wait goes on. The decision arrives as a Workflow Update, validated (one decision per
 * review) and applied by an activity before the update answers, so the new state is visible when
 * the operator's call returns. `before` runs first (a persona review's tests); an outcome it answers
 * ends the review. Cancelling the workflow (the submission was withdrawn) ends it.
 */
export async function awaitOperatorDecision(
  input: ReviewWorkflowInput,
  before?: BeforeOperator,
): Promise<ReviewOutcome> {
  const { markReviewOverdue } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 8 },
  });
  const state: ReviewState = {
    status: before ? 'preparing' : 'waiting',
    overdue: false,
    dueBy: input.dueBy,
    outcome: null,
  };
  setHandler(reviewStateQuery, () => state);
  handleDecisions(input, state);

  const decided = () => state.status === 'decided' || state.status === 'withdrawn';
  try {
    const ended = before ? await before({ input, state }) : null;
    if (ended) {
      state.outcome = ended;
      state.status = ended.status === 'withdrawn' ? 'withdrawn' : 'decided';
    } else {
      if (before) state.status = 'waiting';
      setCurrentDetails(`Waiting for an operator's decision (due ${input.dueBy})`);
      const dueInMs = Math.max(Date.parse(input.dueBy) - Date.now(), 1);
      if (!(await condition(decided, dueInMs)) && state.status === 'waiting') {
        const { pending } = await markReviewOverdue({ reviewId: input.reviewId });
        if (!pending) {
          // withdrawn while this workflow could not be reached: nothing left to wait for
          state.status = 'withdrawn';
          return withdrawnOutcome(input);
        }
        state.overdue = true;
        upsertSearchAttributes([{ key: ReviewOverdueKey, value: true }]);
        setCurrentDetails(`Overdue since ${input.dueBy}: waiting for an operator's decision`);
        log.info('review overdue', { reviewId: input.reviewId, dueBy: input.dueBy });
      }
    }
    await condition(decided);
    await condition(allHandlersFinished);
    setCurrentDetails(`Decided: ${state.outcome?.status ?? state.status}`);
    return state.outcome ?? withdrawnOutcome(input);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    log.info('review withdrawn', { reviewId: input.reviewId });
    state.status = 'withdrawn';
    return withdrawnOutcome(input);
  }
}
