import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import type { MarketplacePublisher as PublisherAuth } from '../../auth/marketplace-auth';
import type { Config } from '../../config/env';
import { notFound } from '../../http/errors';
import { findCatalogVoice } from '../../voices';
import { MarketplaceItem, MarketplaceItemVersion, MarketplacePublisher } from './item.entity';
import type { AgentManifest, ItemManifest, ManifestContext, ToolManifest } from './manifest';
import type { ItemType, TrustLevel } from './statuses';

/** ISO 8601 of a timestamp (an entity's Date, or a raw query's Date or string), or null. */
export const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

export const trustLevel = (verified: boolean): TrustLevel => (verified ? 'verified' : 'community');

/** What manifest validation needs from the configuration: the SSRF policy and the voice catalog. */
export function manifestContext(config: Pick<Config, 'outbound' | 'voices'>): ManifestContext {
  return { outbound: config.outbound, findVoice: (id) => findCatalogVoice(id, config) };
}

/**
 * Records the publisher the gateway named (first call), keeping its display name current. Idempotent
 * and safe under concurrency (an upsert).
 */
export async function recordPublisher(em: EntityManager, auth: PublisherAuth): Promise<void> {
  await em.getConnection().execute(
    `insert into marketplace_publishers (id, name, verified, created_at, updated_at) values (?, ?, false, now(), now())
       on conflict (id) do update set name = excluded.name, updated_at = now()
       where marketplace_publishers.name is distinct from excluded.name`,
    [auth.publisherId, auth.publisherName],
    'run',
    em.getTransactionContext(),
  );
}

export async function findPublisher(em: EntityManager, id: string): Promise<MarketplacePublisher | null> {
  return em.findOne(MarketplacePublisher, { id });
}

/** The columns that describe an item's live version, from its manifest. */
export function liveColumns(type: ItemType, manifest: ItemManifest) {
  return {
    name: manifest.name,
    displayName: type === 'agent' ? (manifest as AgentManifest).displayName : null,
    descriptionShort: manifest.description.short,
    descriptionLong: manifest.description.long,
    runtimeType: type === 'tool' ? (manifest as ToolManifest).execution.runtime.type : null,
    manifest,
    version: manifest.version,
  };
}

/** One of the publisher's items, locked when `lock` (inside a transaction); another publisher's is "not found". */
export async function findPublisherItem(
  em: EntityManager,
  publisherId: string,
  id: string,
  lock = false,
): Promise<MarketplaceItem> {
  const item = await em.findOne(
    MarketplaceItem,
    { id, publisherId },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!item) throw notFound('Item');
  return item;
}

/** The version of an item under review now, if any. */
export async function pendingVersion(
  em: EntityManager,
  itemId: string,
): Promise<MarketplaceItemVersion | null> {
  return em.findOne(
    MarketplaceItemVersion,
    { itemId, status: 'pending_review' },
    { orderBy: { seq: 'desc' } },
  );
}
