import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import type { MeteringKind, Tier } from '../items/statuses';

/**
 * One metering record: a run of an item by a user (`kind` `execution`, or `agent_turn` for a turn
 * of an installed agent's voice session). Inserted with the quota reservation, in the same
 * statement, before the run (so a run that never finishes is still counted); `durationMs`,
 * `success`, `errorCode` and `priceCents` are written when it ends. Usage, quota, analytics and
 * revenue are all computed from these rows (and the counters below, which they equal).
 */
export class MarketplaceUsageRecord {
  [OptionalProps]?:
    | 'id'
    | 'kind'
    | 'finishedAt'
    | 'durationMs'
    | 'success'
    | 'errorCode'
    | 'error'
    | 'priceCents';
  id!: string;
  userId!: string;
  itemId!: string;
  kind: MeteringKind = 'execution';
  tier!: Tier;
  /** The calendar month (UTC) the run counts in, `YYYY-MM`. */
  period!: string;
  startedAt!: Date;
  finishedAt?: Date | null;
  durationMs?: number | null;
  success?: boolean | null;
  errorCode?: string | null;
  error?: string | null;
  priceCents = 0;
}

export const MarketplaceUsageRecordSchema = new EntitySchema<MarketplaceUsageRecord>({
  class: MarketplaceUsageRecord,
  tableName: 'marketplace_usage',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    userId: { type: 'string', length: 128 },
    itemId: { type: 'string', length: 64 },
    kind: { type: 'string', length: 16 },
    tier: { type: 'string', length: 16 },
    period: { type: 'string', length: 7 },
    startedAt: { type: 'Date', columnType: 'timestamptz' },
    finishedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    durationMs: { type: 'integer', nullable: true },
    success: { type: 'boolean', nullable: true },
    errorCode: { type: 'string', length: 40, nullable: true },
    error: { type: 'text', nullable: true },
    priceCents: { type: 'integer' },
  },
});

/**
 * Runs counted against the quota, per user, item and month: incremented only while below the
 * limit, by one atomic upsert that also inserts the metering record (see metering.ts).
 */
export class MarketplaceQuotaCounter {
  [OptionalProps]?: 'used';
  userId!: string;
  itemId!: string;
  period!: string;
  used = 0;
}

export const MarketplaceQuotaCounterSchema = new EntitySchema<MarketplaceQuotaCounter>({
  class: MarketplaceQuotaCounter,
  tableName: 'marketplace_quota_counters',
  properties: {
    userId: { type: 'string', primary: true, length: 128 },
    itemId: { type: 'string', primary: true, length: 64 },
    period: { type: 'string', primary: true, length: 7 },
    used: { type: 'integer' },
  },
});
