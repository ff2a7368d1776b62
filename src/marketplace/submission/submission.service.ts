import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import semver from 'semver';
import type { MarketplacePublisher as PublisherAuth } from '../../auth/marketplace-auth';
import type { AppContext } from '../../common/context';
import { conflict, forbidden, validationFailed } from '../../http/errors';
import { Review, reviewDueBy, reviewId, startCommittedReview } from '../../reviews';
import { MarketplaceItem, MarketplaceItemVersion } from '../items/item.entity';
import { findPublisherItem, liveColumns, manifestContext, recordPublisher } from '../items/items.service';
import type { ItemManifest } from '../items/manifest';
import { manifestWarnings } from '../items/manifest-warnings';
import type { ItemType } from '../items/statuses';
import { manifestProblems } from './manifest-check';
import { awaitCheckFindings, cancelWithdrawnReviews, REVIEW_MESSAGE } from './review.service';

type Ctx = Pick<AppContext, 'config' | 'logger' | 'temporal'>;

/** The manifest as stored, or the publisher check's 403, or every other problem at once (400). */
async function checkedManifest(
  ctx: Ctx,
  em: EntityManager,
  auth: PublisherAuth,
  type: ItemType,
  raw: Record<string, unknown>,
): Promise<ItemManifest> {
  const checked = await manifestProblems(ctx, em, auth, type, raw);
  if (checked.publisherMismatch) throw forbidden(checked.publisherMismatch);
  if (!checked.manifest || checked.errors.length > 0) {
    throw validationFailed(checked.errors, 'The manifest does not pass the marketplace rules');
  }
  return checked.manifest;
}

/** A new version row and its review row (committed together, in the caller's transaction). */
function newVersion(
  ctx: Ctx,
  tem: EntityManager,
  item: MarketplaceItem,
  manifest: ItemManifest,
  seq: number,
  at: Date,
): Review {
  const id = reviewId(item.id, manifest.version);
  tem.create(MarketplaceItemVersion, {
    itemId: item.id,
    version: manifest.version,
    seq,
    manifest,
    reviewId: id,
    submittedAt: at,
  });
  return tem.create(Review, {
    id,
    kind: 'marketplace_item',
    subjectId: item.id,
    accountId: item.publisherId,
    subjectName: `${manifest.name} ${manifest.version}`,
    submission: seq,
    submittedAt: at,
    dueBy: reviewDueBy(ctx.config, at),
  });
}

async function answer(
  ctx: Ctx,
  em: EntityManager,
  item: MarketplaceItem,
  review: Review,
  manifest: ItemManifest,
) {
  await startCommittedReview(ctx, em, review);
  const fallback = manifestWarnings(item.type, manifest, manifestContext(ctx.config));
  const reviewNotes = await awaitCheckFindings(em, review.id, fallback);
  return {
    success: true as const,
    itemId: item.id,
    status: item.status,
    version: manifest.version,
    reviewId: review.id,
    reviewNotes,
    message: REVIEW_MESSAGE,
  };
}

/**
 * POST /publisher/submit: a new item, `pending_review`, with its first version and review committed
 * in one transaction; the review workflow (`review-<id>-<version>`) starts after commit, and the
 * answer carries its automated checks' findings. A taken id is a 409.
 */
export async function submitItem(
  ctx: Ctx,
  em: EntityManager,
  auth: PublisherAuth,
  input: { type: ItemType; manifest: Record<string, unknown> },
) {
  const manifest = await checkedManifest(ctx, em, auth, input.type, input.manifest);
  const taken = () => conflict(`Item id "${manifest.id}" is already taken in the marketplace`);
  let created: { item: MarketplaceItem; review: Review };
  try {
    created = await em.transactional(async (tem) => {
      await recordPublisher(tem, auth);
      if (await tem.findOne(MarketplaceItem, { id: manifest.id }, { fields: ['id'] })) throw taken();
      const now = new Date();
      const item = tem.create(MarketplaceItem, {
        id: manifest.id,
        type: input.type,
        publisherId: auth.publisherId,
        status: 'pending_review',
        ...liveColumns(input.type, manifest),
        latestVersion: manifest.version,
        submissions: 1,
      });
      const review = newVersion(ctx, tem, item, manifest, 1, now);
      return { item, review };
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw taken();
    throw error;
  }
  return answer(ctx, em, created.item, created.review, manifest);
}

/**
 * PUT /publisher/:id: a new version, which must be greater than the latest submitted (same or lower
 * → 409). An approved item stays `approved` and keeps serving its approved version while the new
 * one is reviewed (a rejection leaves it live); an item never approved shows the new version,
 * `pending_review`. A version still under review is withdrawn (its workflow cancelled). An item
 * being removed is refused (restore it first).
 */
export async function updateItem(
  ctx: Ctx,
  em: EntityManager,
  auth: PublisherAuth,
  id: string,
  input: { manifest: Record<string, unknown> },
) {
  const existing = await findPublisherItem(em, auth.publisherId, id);
  const manifest = await checkedManifest(ctx, em, auth, existing.type, input.manifest);
  if (manifest.id !== id) {
    throw validationFailed([`manifest.id: must be "${id}", the item being updated`]);
  }
  const { item, review, withdrawn } = await em.transactional(async (tem) => {
    await recordPublisher(tem, auth);
    const item = await findPublisherItem(tem, auth.publisherId, id, true);
    if (item.status === 'removal_scheduled' || item.status === 'removed') {
      throw conflict(
        `Item ${id} is ${item.status === 'removed' ? 'removed' : 'scheduled for removal'}; ${item.status === 'removed' ? 'it cannot be updated' : 'restore it before updating it'}`,
      );
    }
    if (!semver.gt(manifest.version, item.latestVersion)) {
      throw conflict(
        `manifest.version ${manifest.version} must be greater than the latest submitted version ${item.latestVersion}`,
      );
    }
    const pending = await tem.find(MarketplaceItemVersion, { itemId: id, status: 'pending_review' });
    for (const v of pending) v.status = 'withdrawn';
    const withdrawn = pending.map((v) => v.reviewId);
    if (withdrawn.length) {
      await tem.nativeUpdate(Review, { id: withdrawn, status: 'pending' }, { status: 'withdrawn' });
    }
    const seq = item.submissions + 1;
    tem.assign(item, {
      latestVersion: manifest.version,
      submissions: seq,
      ...(item.approvedVersion
        ? {}
        : { ...liveColumns(item.type, manifest), status: 'pending_review' as const }),
    });
    const review = newVersion(ctx, tem, item, manifest, seq, new Date());
    return { item, review, withdrawn };
  });
  await cancelWithdrawnReviews(ctx, withdrawn);
  return answer(ctx, em, item, review, manifest);
}
