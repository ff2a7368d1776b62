import type { EntityManager } from '@mikro-orm/postgresql';
import type { MarketplacePublisher as PublisherAuth } from '../../auth/marketplace-auth';
import { notFound } from '../../http/errors';
import { MarketplaceItem, MarketplaceItemVersion, MarketplacePublisher } from '../items/item.entity';
import { findPublisherItem, iso, recordPublisher, trustLevel } from '../items/items.service';
import type { PublisherItemView } from './publisher.schemas';

export function publisherItemView(
  item: MarketplaceItem,
  verified: boolean,
  pendingVersion: string | null,
): PublisherItemView {
  return {
    id: item.id,
    name: item.name,
    type: item.type,
    version: item.version,
    status: item.status,
    trustLevel: trustLevel(verified),
    publishedAt: iso(item.publishedAt),
    latestVersion: item.latestVersion,
    pendingVersion,
    activeInstalls: item.activeInstalls,
    removesAt: item.status === 'removal_scheduled' ? iso(item.removesAt) : null,
    createdAt: item.createdAt.toISOString(),
    updatedAt: item.updatedAt.toISOString(),
  };
}

async function isVerified(em: EntityManager, publisherId: string): Promise<boolean> {
  return (await em.findOne(MarketplacePublisher, { id: publisherId }))?.verified ?? false;
}

/** GET /publisher/items: every item of the publisher (removed ones too), newest first. */
export async function listPublisherItems(em: EntityManager, publisherId: string) {
  const [items, verified] = await Promise.all([
    em.find(MarketplaceItem, { publisherId }, { orderBy: { createdAt: 'desc', id: 'asc' } }),
    isVerified(em, publisherId),
  ]);
  const pending = items.length
    ? await em.find(
        MarketplaceItemVersion,
        { itemId: items.map((i) => i.id), status: 'pending_review' },
        { fields: ['itemId', 'version'] },
      )
    : [];
  const pendingOf = (id: string) => pending.find((v) => v.itemId === id)?.version ?? null;
  return {
    items: items.map((item) => publisherItemView(item, verified, pendingOf(item.id))),
    totalCount: items.length,
  };
}

/** One item with its live manifest and every version (review findings, decisions); the owner's only. */
export async function itemDetail(em: EntityManager, item: MarketplaceItem) {
  const [versions, verified] = await Promise.all([
    em.find(MarketplaceItemVersion, { itemId: item.id }, { orderBy: { seq: 'desc' } }),
    isVerified(em, item.publisherId),
  ]);
  const pending = versions.find((v) => v.status === 'pending_review')?.version ?? null;
  return {
    item: {
      ...publisherItemView(item, verified, pending),
      manifest: item.manifest as unknown as Record<string, unknown>,
      versions: versions.map((v) => ({
        version: v.version,
        status: v.status,
        submittedAt: v.submittedAt.toISOString(),
        decidedAt: iso(v.decidedAt),
        reviewId: v.reviewId,
        reviewNotes: v.reviewNotes,
        checksPassed: v.checksPassed ?? null,
        decisionNotes: v.decisionNotes ?? null,
        changelog: v.manifest.changelog ?? null,
      })),
    },
  };
}

export async function getPublisherItem(em: EntityManager, publisherId: string, id: string) {
  return itemDetail(em, await findPublisherItem(em, publisherId, id));
}

/** GET /publisher/profile: exact counts from the items table (removed items are not counted). */
export async function publisherProfile(em: EntityManager, auth: PublisherAuth) {
  await recordPublisher(em, auth);
  const publisher = await em.findOneOrFail(MarketplacePublisher, { id: auth.publisherId });
  const [counts] = await em
    .getConnection()
    .execute<{ tools: string; agents: string; approved: string; pending: string }[]>(
      `select count(*) filter (where type = 'tool' and status <> 'removed') as tools,
            count(*) filter (where type = 'agent' and status <> 'removed') as agents,
            count(*) filter (where status = 'approved') as approved,
            count(*) filter (where exists (select 1 from marketplace_item_versions v
                                           where v.item_id = i.id and v.status = 'pending_review')) as pending
       from marketplace_items i where publisher_id = ?`,
      [auth.publisherId],
    );
  return {
    publisherId: publisher.id,
    publisherName: publisher.name,
    verified: publisher.verified,
    verifiedAt: iso(publisher.verifiedAt),
    trustLevel: trustLevel(publisher.verified),
    stats: {
      totalTools: Number(counts.tools),
      totalAgents: Number(counts.agents),
      approvedItems: Number(counts.approved),
      pendingItems: Number(counts.pending),
    },
  };
}

/**
 * PUT /api/admin/publishers/:id/verification: sets whether the publisher is verified, which every
 * view of its items shows as `verified` and `trustLevel` (`verified`, else `community`). A publisher
 * the marketplace has never seen is a 404.
 */
export async function setPublisherVerification(em: EntityManager, id: string, verified: boolean) {
  const publisher = await em.findOne(MarketplacePublisher, { id });
  if (!publisher) throw notFound('Publisher');
  if (publisher.verified !== verified) {
    em.assign(publisher, { verified, verifiedAt: verified ? new Date() : null });
    await em.flush();
  }
  return {
    publisher: {
      id: publisher.id,
      name: publisher.name,
      verified: publisher.verified,
      verifiedAt: iso(publisher.verifiedAt),
      trustLevel: trustLevel(publisher.verified),
    },
  };
}

/** The operators' view of any item (the publisher's view, with every version). */
export async function getPublisherItemForAdmin(em: EntityManager, id: string) {
  const item = await em.findOne(MarketplaceItem, { id });
  if (!item) throw notFound('Item');
  return itemDetail(em, item);
}
