import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError } from '@temporalio/client';
import { restoreItemSignal } from '../../../workflows/messages';
import type { MarketplacePublisher as PublisherAuth } from '../../auth/marketplace-auth';
import type { AppContext, CoreContext } from '../../common/context';
import type { Config } from '../../config/env';
import { conflict } from '../../http/errors';
import { Review } from '../../reviews';
import { MarketplaceInstallation } from '../installations/installation.entity';
import { MarketplaceItem, MarketplaceItemVersion } from '../items/item.entity';
import { findPublisherItem } from '../items/items.service';
import { MarketplaceRemoval, removalId } from './removal.entity';
import type { RemovalOutcome } from './removal-types';
import { startRemovalWorkflow } from './removal-workflows';

type Ctx = Pick<AppContext, 'config' | 'logger' | 'temporal'>;

/** How long a removed item's existing installations keep working (MARKETPLACE_REMOVAL_GRACE_*). */
export function removalGraceMs(config: Pick<Config, 'marketplace'>): number {
  const { removalGraceSeconds, removalGraceDays } = config.marketplace;
  return removalGraceSeconds !== undefined ? removalGraceSeconds * 1000 : removalGraceDays * 86_400_000;
}

async function startCommittedRemoval(ctx: Ctx, em: EntityManager, removal: MarketplaceRemoval) {
  try {
    await startRemovalWorkflow(ctx.temporal, ctx.config, removal);
    await em.nativeUpdate(MarketplaceRemoval, { id: removal.id }, { workflowStartedAt: new Date() });
  } catch (error) {
    ctx.logger.warn(
      { err: error, removalId: removal.id },
      'removal workflow not started yet; the dispatcher will',
    );
  }
}

/**
 * DELETE /publisher/:id: the item leaves browse and takes no new installs at once (status
 * `removal_scheduled`, committed with a removal row); its removal workflow then keeps existing
 * installations working until the grace period ends. A version under review keeps its review (the
 * item may be restored); the final removal withdraws it.
 */
export async function removeItem(ctx: Ctx, em: EntityManager, auth: PublisherAuth, id: string) {
  const { removal, installs } = await em.transactional(async (tem) => {
    const item = await findPublisherItem(tem, auth.publisherId, id, true);
    if (item.status === 'removal_scheduled') {
      throw conflict(`Item ${id} is already scheduled for removal on ${item.removesAt?.toISOString()}`);
    }
    if (item.status === 'removed') throw conflict(`Item ${id} is already removed`);
    const now = new Date();
    const seq = item.removals + 1;
    const removesAt = new Date(now.getTime() + removalGraceMs(ctx.config));
    tem.assign(item, {
      statusBeforeRemoval: item.status,
      status: 'removal_scheduled',
      removals: seq,
      removalRequestedAt: now,
      removesAt,
    });
    const removal = tem.create(MarketplaceRemoval, {
      id: removalId(id, seq),
      itemId: id,
      publisherId: auth.publisherId,
      seq,
      requestedAt: now,
      removesAt,
    });
    return { removal, installs: item.activeInstalls };
  });
  await startCommittedRemoval(ctx, em, removal);
  const until = removal.removesAt.toISOString();
  return {
    success: true as const,
    message: `Item ${id} is scheduled for removal: it left browse and takes no new installs. Its ${installs} existing ${installs === 1 ? 'installation keeps' : 'installations keep'} working until ${until}; POST /publisher/${id}/restore before then undoes the removal.`,
    itemId: id,
    status: 'removal_scheduled' as const,
    removesAt: until,
    activeInstallations: installs,
    removalId: removal.id,
  };
}

/**
 * POST /publisher/:id/restore: within the grace period, the item returns to the status it had (back
 * in browse, installable); its removal workflow is told and ends. After the grace period → 409.
 */
export async function restoreItem(ctx: Ctx, em: EntityManager, auth: PublisherAuth, id: string) {
  const { item, restored } = await em.transactional(async (tem) => {
    const item = await findPublisherItem(tem, auth.publisherId, id, true);
    if (item.status === 'removed' || (item.status === 'removal_scheduled' && item.removesAt! <= new Date())) {
      throw conflict(`Item ${id} was removed when its grace period ended; it can no longer be restored`);
    }
    if (item.status !== 'removal_scheduled') throw conflict(`Item ${id} is not scheduled for removal`);
    const restored = removalId(id, item.removals);
    const marked = await tem.nativeUpdate(
      MarketplaceRemoval,
      { id: restored, status: 'scheduled' },
      { status: 'restored', restoredAt: new Date() },
    );
    if (marked === 0) throw conflict(`Item ${id} was removed when its grace period ended`);
    tem.assign(item, {
      status: item.statusBeforeRemoval ?? 'approved',
      statusBeforeRemoval: null,
      removalRequestedAt: null,
      removesAt: null,
    });
    return { item, restored };
  });
  try {
    await ctx.temporal.workflow.getHandle(restored).signal(restoreItemSignal);
  } catch (error) {
    // the timer finds the removal restored when it fires
    if (!(error instanceof WorkflowNotFoundError)) {
      ctx.logger.warn({ err: error, removalId: restored }, 'could not signal the removal workflow');
    }
  }
  return {
    success: true as const,
    itemId: id,
    status: item.status,
    message: `Item ${id} is restored: it is ${item.status === 'approved' ? 'back in browse and installable' : item.status.replace('_', ' ')} again.`,
  };
}

/**
 * The removal workflow's last step, when the grace period ended: unless the item was restored, the
 * item becomes `removed`, its active installations `removed`, and versions still under review
 * withdrawn (their review ids are returned for the workflow to cancel). One transaction under the
 * item's lock, so it and a restore never both happen; idempotent.
 */
export async function completeRemoval(ctx: Pick<CoreContext, 'orm'>, id: string): Promise<RemovalOutcome> {
  return ctx.orm.em.fork().transactional(async (tem) => {
    const removal = await tem.findOne(MarketplaceRemoval, { id });
    const none = { removalId: id, installationsRemoved: 0, withdrawnReviews: [] as string[] };
    if (!removal) return { ...none, status: 'restored' };
    const item = await tem.findOneOrFail(
      MarketplaceItem,
      { id: removal.itemId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    await tem.refresh(removal);
    if (removal!.status === 'restored') return { ...none, status: 'restored' };
    if (removal!.status === 'completed') return { ...none, status: 'removed' };
    const now = new Date();
    const installationsRemoved = await tem.nativeUpdate(
      MarketplaceInstallation,
      { itemId: item.id, status: 'active' },
      { status: 'removed', removedAt: now },
    );
    const pending = await tem.find(MarketplaceItemVersion, { itemId: item.id, status: 'pending_review' });
    for (const v of pending) v.status = 'withdrawn';
    const withdrawnReviews = pending.map((v) => v.reviewId);
    if (withdrawnReviews.length) {
      await tem.nativeUpdate(Review, { id: withdrawnReviews, status: 'pending' }, { status: 'withdrawn' });
    }
    tem.assign(item, { status: 'removed', removedAt: now, activeInstalls: 0, statusBeforeRemoval: null });
    tem.assign(removal!, { status: 'completed', completedAt: now });
    return { removalId: id, status: 'removed', installationsRemoved, withdrawnReviews };
  });
}
