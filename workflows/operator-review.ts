import {
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
 * Waits for an operator's decision on a review, keeping a durable timer until `dueBy`: when it fires
 * first, the review is marked overdue (in the database and as the `ReviewOverdue` search attribute)
 * and the wait goes on. The decision arrives as a Workflow Update, validated (one decision per
 * review) and applied by an activity before the update answers, so the new state is visible when
 * the operator's call returns. Cancelling the workflow (the submission was withdrawn) ends it.
 */
export async function awaitOperatorDecision(input: ReviewWorkflowInput): Promise<ReviewOutcome> {
  const { applyReviewDecision, markReviewOverdue } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 8 },
  });
  const state: ReviewState = { status: 'waiting', overdue: false, dueBy: input.dueBy, outcome: null };
  setHandler(reviewStateQuery, () => state);
  setHandler(
    decideReviewUpdate,
    async (decision) => {
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
        if (state.status !== 'waiting')
          throw new Error(`This review is ${state.status}; it takes one decision`);
      },
    },
  );

  const decided = () => state.status === 'decided' || state.status === 'withdrawn';
  try {
    setCurrentDetails(`Waiting for an operator's decision (due ${input.dueBy})`);
    const dueInMs = Math.max(Date.parse(input.dueBy) - Date.now(), 1);
    if (!(await condition(decided, dueInMs)) && state.status === 'waiting') {
      const { pending } = await markReviewOverdue({ reviewId: input.reviewId });
      if (!pending) {
        // withdrawn while this workflow could not be reached: nothing left to wait for
        state.status = 'withdrawn';
        return { reviewId: input.reviewId, status: 'withdrawn', notes: null, decidedAt: null };
      }
      state.overdue = true;
      upsertSearchAttributes([{ key: ReviewOverdueKey, value: true }]);
      setCurrentDetails(`Overdue since ${input.dueBy}: waiting for an operator's decision`);
      log.info('review overdue', { reviewId: input.reviewId, dueBy: input.dueBy });
    }
    await condition(decided);
    await condition(allHandlersFinished);
    setCurrentDetails(`Decided: ${state.outcome?.status ?? state.status}`);
    return state.outcome ?? { reviewId: input.reviewId, status: 'withdrawn', notes: null, decidedAt: null };
  } catch (error) {
    if (!isCancellation(error)) throw error;
    log.info('review withdrawn', { reviewId: input.reviewId });
    state.status = 'withdrawn';
    return { reviewId: input.reviewId, status: 'withdrawn', notes: null, decidedAt: null };
  }
}
