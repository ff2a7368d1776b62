import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import type { ItemManifest } from './manifest';
import type { ItemStatus, ItemType, VersionStatus } from './statuses';

const timestamptz = (nullable = false) => ({ type: 'Date', columnType: 'timestamptz', nullable }) as const;

/**
 * A publisher as the gateway names it (`x-publisher-id`, `x-publisher-name`), recorded at its first
 * marketplace call. `verified` is set by an operator; it makes its items' `trustLevel` `verified`.
 */
export class MarketplacePublisher {
  [OptionalProps]?: 'verified' | 'verifiedAt' | 'createdAt' | 'updatedAt';
  id!: string;
  name!: string;
  verified = false;
  verifiedAt?: Date | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const MarketplacePublisherSchema = new EntitySchema<MarketplacePublisher>({
  class: MarketplacePublisher,
  tableName: 'marketplace_publishers',
  properties: {
    id: { type: 'string', primary: true, length: 128 },
    name: { type: 'string', length: 128 },
    verified: { type: 'boolean' },
    verifiedAt: timestamptz(true),
    createdAt: timestamptz(),
    updatedAt: { ...timestamptz(), onUpdate: () => new Date() },
  },
});

/**
 * A marketplace tool or agent; its id is the manifest's `id` (a slug, unique forever: a removed
 * item's id is never given to another publisher). The columns `name` … `runtimeType` and `manifest`
 * describe the live version: the approved one, or while none is approved the latest submitted.
 * `search` (a generated tsvector over id, names and descriptions, GIN-indexed) is not mapped.
 */
export class MarketplaceItem {
  [OptionalProps]?:
    | 'displayName'
    | 'runtimeType'
    | 'approvedVersion'
    | 'submissions'
    | 'removals'
    | 'activeInstalls'
    | 'publishedAt'
    | 'approvedAt'
    | 'removalRequestedAt'
    | 'removesAt'
    | 'removedAt'
    | 'statusBeforeRemoval'
    | 'createdAt'
    | 'updatedAt';
  id!: string;
  type!: ItemType;
  publisherId!: string;
  status!: ItemStatus;
  name!: string;
  displayName?: string | null;
  descriptionShort!: string;
  descriptionLong!: string;
  /** Tools: `execution.runtime.type` of the live version. */
  runtimeType?: string | null;
  manifest!: ItemManifest;
  /** The live version (approved, else the latest submitted). */
  version!: string;
  approvedVersion?: string | null;
  latestVersion!: string;
  /** Versions submitted; the n-th is `marketplace_item_versions.seq = n`. */
  submissions = 1;
  /** Removals requested; the n-th runs as workflow `remove-<id>-<n>`. */
  removals = 0;
  /** Installations with status `active` (kept in the installing and uninstalling transactions; `popular` sort). */
  activeInstalls = 0;
  /** First approval. */
  publishedAt?: Date | null;
  /** Latest approval. */
  approvedAt?: Date | null;
  removalRequestedAt?: Date | null;
  removesAt?: Date | null;
  removedAt?: Date | null;
  statusBeforeRemoval?: ItemStatus | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const MarketplaceItemSchema = new EntitySchema<MarketplaceItem>({
  class: MarketplaceItem,
  tableName: 'marketplace_items',
  properties: {
    id: { type: 'string', primary: true, length: 64 },
    type: { type: 'string', length: 8 },
    publisherId: { type: 'string', length: 128 },
    status: { type: 'string', length: 24 },
    name: { type: 'string', length: 100 },
    displayName: { type: 'string', length: 100, nullable: true },
    descriptionShort: { type: 'string', length: 200 },
    descriptionLong: { type: 'text' },
    runtimeType: { type: 'string', length: 32, nullable: true },
    manifest: { type: 'json', columnType: 'jsonb' },
    version: { type: 'string', length: 64 },
    approvedVersion: { type: 'string', length: 64, nullable: true },
    latestVersion: { type: 'string', length: 64 },
    submissions: { type: 'integer' },
    removals: { type: 'integer' },
    activeInstalls: { type: 'integer' },
    publishedAt: timestamptz(true),
    approvedAt: timestamptz(true),
    removalRequestedAt: timestamptz(true),
    removesAt: timestamptz(true),
    removedAt: timestamptz(true),
    statusBeforeRemoval: { type: 'string', length: 24, nullable: true },
    createdAt: timestamptz(),
    updatedAt: { ...timestamptz(), onUpdate: () => new Date() },
  },
});

/**
 * One submitted version of an item and its review (`reviewId` = the review row and workflow id,
 * `review-<item id>-<version>`). `reviewNotes` are the automated checks' findings, written once by
 * the review workflow's first activity (`checkedAt`); `decisionNotes` are the operator's.
 */
export class MarketplaceItemVersion {
  [OptionalProps]?:
    | 'status'
    | 'reviewNotes'
    | 'checksPassed'
    | 'checkedAt'
    | 'decisionNotes'
    | 'decidedAt'
    | 'createdAt';
  itemId!: string;
  version!: string;
  seq!: number;
  manifest!: ItemManifest;
  status: VersionStatus = 'pending_review';
  reviewId!: string;
  reviewNotes: string[] = [];
  checksPassed?: boolean | null;
  checkedAt?: Date | null;
  decisionNotes?: string | null;
  submittedAt!: Date;
  decidedAt?: Date | null;
  createdAt: Date = new Date();
}

export const MarketplaceItemVersionSchema = new EntitySchema<MarketplaceItemVersion>({
  class: MarketplaceItemVersion,
  tableName: 'marketplace_item_versions',
  properties: {
    itemId: { type: 'string', primary: true, length: 64 },
    version: { type: 'string', primary: true, length: 64 },
    seq: { type: 'integer' },
    manifest: { type: 'json', columnType: 'jsonb' },
    status: { type: 'string', length: 16 },
    reviewId: { type: 'string', length: 160 },
    reviewNotes: { type: 'json', columnType: 'jsonb' },
    checksPassed: { type: 'boolean', nullable: true },
    checkedAt: timestamptz(true),
    decisionNotes: { type: 'text', nullable: true },
    submittedAt: timestamptz(),
    decidedAt: timestamptz(true),
    createdAt: timestamptz(),
  },
});
