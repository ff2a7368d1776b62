import type { EntityManager } from '@mikro-orm/postgresql';
import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { decideReviewUpdate } from '../../workflows/messages';
import type { AppContext } from '../common/context';
import { ApiError, conflict, notFound } from '../http/errors';
import type { OperatorDecision, ReviewDecision } from '../reviews';
import { cancelReviewWorkflow, Review, reviewDueBy, reviewId, startCommittedReview } from '../reviews';
import { knownRefusal, REVIEW_REFUSALS } from '../temporal/update-refusal';
import { Persona } from './persona.entity';
import type { ReviewDecisionInput } from './personas.schemas';
import { findPersona, isLive, personaView, refuseUnlessEditable, validatePersona } from './personas.service';
import { publishApprovedPersona } from './versions.service';

export const SUBMITTED_MESSAGE =
  'Persona submitted for review. Review takes 2-5 business days; you will see the decision and any notes on the persona.';

type Ctx = Pick<AppContext, 'config' | 'logger' | 'temporal'>;

/**
 * POST /personas/:id/submit: a draft or rejected persona that passes validation becomes `submitted`
 * and its review row is committed in the same transaction (workflow id `review-<id>-<n>`); the review
 * workflow starts after commit.
 */
export async function submitPersona(ctx: Ctx, em: EntityManager, accountId: string, id: string) {
  const review = await em.transactional(async (tem) => {
    const persona = await findPersona(tem, accountId, id, true);
    refuseUnlessEditable(persona, 'submitted');
    const result = await validatePersona(tem, ctx.config, persona);
    if (!result.valid) {
      throw conflict('Persona does not pass validation; fix the errors and submit again', result.errors);
    }
    const now = new Date();
    const submission = persona.submissions + 1;
    tem.assign(persona, { status: 'submitted', submissions: submission, submittedAt: now });
    return tem.create(Review, {
      id: reviewId(persona.id, submission),
      kind: 'persona',
      subjectId: persona.id,
      accountId,
      subjectName: persona.name,
      submission,
      submittedAt: now,
      dueBy: reviewDueBy(ctx.config, now),
    });
  });
  await startCommittedReview(ctx, em, review);
  return { success: true as const, status: 'submitted' as const, message: SUBMITTED_MESSAGE };
}

/**
 * DELETE /personas/:id: a published persona cannot be deleted (unpublish it first); a submitted one
 * withdraws its review (marked in the same transaction, its workflow cancelled after commit).
 */
export async function deletePersona(ctx: Ctx, em: EntityManager, accountId: string, id: string) {
  const withdrawn = await em.transactional(async (tem) => {
    const persona = await findPersona(tem, accountId, id, true);
    if (isLive(persona)) {
      throw conflict(`Persona ${persona.id} is published; unpublish it before deleting it`);
    }
    const pending = persona.status === 'submitted' ? reviewId(persona.id, persona.submissions) : undefined;
    if (pending) await tem.nativeUpdate(Review, { id: pending, status: 'pending' }, { status: 'withdrawn' });
    tem.remove(persona);
    return pending;
  });
  if (withdrawn) {
    // The review row is withdrawn already; a workflow that cannot be cancelled now ends at its timer.
    await cancelReviewWorkflow(ctx.temporal, withdrawn).catch((error) =>
      ctx.logger.warn({ err: error, reviewId: withdrawn }, 'could not cancel a withdrawn review workflow'),
    );
  }
  return { success: true as const, id, deletedAt: new Date().toISOString() };
}

/** How long a decision waits for a review whose tests have just ended to take it. */
const TESTS_ENDING_WAIT_MS = 3_000;
const TESTS_RUNNING_REFUSAL = /^The review's tests are still running/;

/**
 * Sends the decision as the review workflow's update. The review's test summary is stored (the run
 * shown as ended) a moment before its workflow, which stored it, takes decisions again: a decision
 * refused in that moment is sent again (every 100 ms, up to 3 s), so an operator who sees the
 * tests ended is never told they are still running. One refused while they run is answered at once.
 */
async function sendDecision(ctx: Ctx, em: EntityManager, id: string, decision: OperatorDecision) {
  const giveUpAt = Date.now() + TESTS_ENDING_WAIT_MS;
  for (;;) {
    try {
      return await ctx.temporal.workflow
        .getHandle(id)
        .executeUpdate(decideReviewUpdate, { args: [decision] });
    } catch (error) {
      const testsRunning =
        error instanceof WorkflowUpdateFailedError && TESTS_RUNNING_REFUSAL.test(error.cause?.message ?? '');
      if (!testsRunning || Date.now() > giveUpAt) throw error;
      const review = await em.fork().findOne(Review, { id });
      if (!review?.tests || review.tests.status === 'running') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * POST /api/admin/personas/:id/review: the operator's decision, sent to the review workflow as a
 * Workflow Update; the workflow applies it, and the answer is the persona as it now is.
 */
export async function decidePersonaReview(
  ctx: Ctx,
  em: EntityManager,
  id: string,
  input: ReviewDecisionInput,
) {
  const persona = await em.findOne(Persona, { id });
  if (!persona) throw notFound('Persona');
  if (persona.status !== 'submitted') {
    throw conflict(`Persona ${persona.id} is ${persona.status}, not under review`);
  }
  const review = await em.findOne(Review, { id: reviewId(persona.id, persona.submissions) });
  if (review?.status !== 'pending') {
    throw conflict(`Persona ${persona.id} is not under review`);
  }
  if (!review.workflowStartedAt) await startCommittedReview(ctx, em, review);
  const decision: OperatorDecision = { decision: input.decision };
  if (input.notes) decision.notes = input.notes;
  try {
    const outcome = await sendDecision(ctx, em, review.id, decision);
    if (outcome.status === 'withdrawn') throw conflict(`Persona ${persona.id} was withdrawn`);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof WorkflowUpdateFailedError) {
      const refusal = knownRefusal(error, REVIEW_REFUSALS);
      throw conflict(
        refusal
          ? `The review did not take the decision: ${refusal}`
          : 'The review did not take the decision now; retry shortly',
      );
    }
    if (error instanceof WorkflowNotFoundError) throw conflict(`Persona ${persona.id} is not under review`);
    if (error instanceof ServiceError) {
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Temporal is unavailable; retry the decision shortly');
    }
    throw error;
  }
  return personaView(em, await em.refreshOrFail(persona));
}

/**
 * What a persona review's decision does, inside the transaction that records it: an approval freezes
 * the next version and makes it live; a rejection leaves the live version (if any) serving.
 */
export async function personaReviewSubject(
  tem: EntityManager,
  review: Review,
  decision: ReviewDecision,
  at: Date,
): Promise<void> {
  if (decision === 'approve') return publishApprovedPersona(tem, review, at);
  await tem.nativeUpdate(
    Persona,
    { id: review.subjectId, status: 'submitted', submissions: review.submission },
    { status: 'rejected' },
  );
}
