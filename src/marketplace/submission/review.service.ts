import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { decideReviewUpdate } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { ApiError, conflict, notFound } from '../../http/errors';
import type { OperatorDecision, ReviewDecision, ReviewOutcome } from '../../reviews';
import { cancelReviewWorkflow, Review, startCommittedReview } from '../../reviews';
import { knownRefusal, REVIEW_REFUSALS } from '../../temporal/update-refusal';
import { MarketplaceItem, MarketplaceItemVersion } from '../items/item.entity';
import { liveColumns, pendingVersion } from '../items/items.service';

type Ctx = Pick<AppContext, 'config' | 'logger' | 'temporal'>;

/** How long a submission waits for the automated checks before answering without their findings. */
export const CHECKS_WAIT_MS = 15_000;

export const REVIEW_MESSAGE =
  'Submitted for review. Review takes 2-5 business days. Automated checks run first; their findings are in reviewNotes (and in GET /publisher/:id).';

/** Ends reviews withdrawn in a committed transaction; one that cannot be cancelled now ends at its next decision. */
export async function cancelWithdrawnReviews(ctx: Ctx, reviewIds: string[]): Promise<void> {
  for (const id of reviewIds) {
    await cancelReviewWorkflow(ctx.temporal, id).catch((error) =>
      ctx.logger.warn({ err: error, reviewId: id }, 'could not cancel a withdrawn review workflow'),
    );
  }
}

/**
 * Waits (bounded) for the review workflow's automated checks to record their findings, polling the
 * version row. Answers the findings, or, past the wait (Temporal down, a slow endpoint), `fallback`
 * and a note that the checks are still running.
 */
export async function awaitCheckFindings(
  em: EntityManager,
  reviewId: string,
  fallback: string[],
  waitMs = CHECKS_WAIT_MS,
): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (let pause = 25; ; pause = Math.min(pause * 2, 250)) {
    const version = await em.fork().findOne(MarketplaceItemVersion, { reviewId });
    if (version?.checkedAt) return version.reviewNotes;
    if (Date.now() + pause > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  return [
    ...fallback,
    'Automated checks are still running; their findings will appear in GET /publisher/:id',
  ];
}

/**
 * What a marketplace review's decision does, inside the transaction that records it (the
 * `marketplace_item` review subject). Approve: the version goes live (the item becomes `approved`
 * and shows it; an earlier approved version is `superseded`). Reject: the version is `rejected`
 * with the notes; an item with an approved version keeps serving it, one without becomes
 * `rejected`. An item being removed keeps its removal; its status to restore is updated instead.
 */
export async function marketplaceReviewSubject(
  tem: EntityManager,
  review: Review,
  decision: ReviewDecision,
  at: Date,
): Promise<void> {
  const version = await tem.findOne(
    MarketplaceItemVersion,
    { reviewId: review.id },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (version?.status !== 'pending_review') return;
  const item = await tem.findOneOrFail(
    MarketplaceItem,
    { id: version.itemId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  const notes = review.notes ?? null;
  const removing = item.status === 'removal_scheduled';
  if (decision === 'approve') {
    if (item.approvedVersion) {
      await tem.nativeUpdate(
        MarketplaceItemVersion,
        { itemId: item.id, version: item.approvedVersion },
        { status: 'superseded' },
      );
    }
    tem.assign(version, { status: 'approved', decidedAt: at, decisionNotes: notes });
    tem.assign(item, {
      ...liveColumns(item.type, version.manifest),
      approvedVersion: version.version,
      approvedAt: at,
      publishedAt: item.publishedAt ?? at,
      ...(removing ? { statusBeforeRemoval: 'approved' as const } : { status: 'approved' as const }),
    });
  } else {
    tem.assign(version, { status: 'rejected', decidedAt: at, decisionNotes: notes });
    if (!item.approvedVersion) {
      tem.assign(item, removing ? { statusBeforeRemoval: 'rejected' } : { status: 'rejected' });
    }
  }
}

/**
 * POST /api/admin/marketplace/items/:id/review: the operator's decision on the version under review,
 * sent to its review workflow as the Workflow Update `decide`; the workflow applies it before the
 * update answers. Refused (409) while the automated checks still run, and when no version is under
 * review.
 */
export async function decideMarketplaceReview(
  ctx: Ctx,
  em: EntityManager,
  itemId: string,
  input: OperatorDecision,
): Promise<void> {
  const item = await em.findOne(MarketplaceItem, { id: itemId });
  if (!item) throw notFound('Item');
  const version = await pendingVersion(em, itemId);
  if (!version) throw conflict(`Item ${itemId} has no version under review`);
  const review = await em.findOne(Review, { id: version.reviewId });
  if (review?.status !== 'pending') throw conflict(`Item ${itemId} has no version under review`);
  if (!version.checkedAt) {
    throw conflict(
      `The automated checks of ${itemId} ${version.version} are still running; decide once they end`,
    );
  }
  if (!review.workflowStartedAt) await startCommittedReview(ctx, em, review);
  const decision: OperatorDecision = { decision: input.decision };
  if (input.notes) decision.notes = input.notes;
  try {
    const outcome = await decideOnce(ctx, review.id, decision);
    if (outcome.status === 'withdrawn')
      throw conflict(`The review of ${itemId} ${version.version} was withdrawn`);
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
    if (error instanceof WorkflowNotFoundError) throw conflict(`Item ${itemId} has no version under review`);
    if (error instanceof ServiceError) {
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Temporal is unavailable; retry the decision shortly');
    }
    throw error;
  }
}

/** A decision refused only because the workflow has not yet taken its checks' result is retried this long. */
const CHECKS_SETTLE_MS = 5_000;

/**
 * Sends the decide update. The checks' findings are stored (which the API looks at) an instant
 * before the workflow resumes and installs the operator's handler; an update arriving in between is
 * refused by the workflow's interim handler, and is sent again shortly.
 */
async function decideOnce(ctx: Ctx, id: string, decision: OperatorDecision): Promise<ReviewOutcome> {
  const deadline = Date.now() + CHECKS_SETTLE_MS;
  for (;;) {
    try {
      return await ctx.temporal.workflow
        .getHandle(id)
        .executeUpdate(decideReviewUpdate, { args: [decision] });
    } catch (error) {
      const settling =
        error instanceof WorkflowUpdateFailedError &&
        /automated checks are still running/.test(error.cause?.message ?? '');
      if (!settling || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
