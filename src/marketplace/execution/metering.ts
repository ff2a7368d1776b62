import type { Knex } from 'knex';
import { preparedStatement } from '../../db/prepared';
import type { MeteringKind, Tier } from '../items/statuses';

/**
 * Metering and exact quotas. A run is admitted by ONE statement that both counts it against the
 * user's quota for the item and month and inserts its metering record:
 *
 *   insert … into marketplace_quota_counters … on conflict do update set used = used + 1 where used < limit
 *
 * PostgreSQL runs an upsert's conflict update under the row's lock and evaluates its WHERE against
 * the latest committed row, so concurrent runs are admitted one at a time and exactly `limit` pass
 * (50 parallel calls against 10 remaining: exactly 10 run). The metering record is inserted from the
 * same statement only when the counter moved, so counters and records always agree, and a run that
 * never finishes (a crash) still counts. `finishRun` then writes its outcome.
 */

/** The calendar month (UTC) of `at`, `YYYY-MM`: the period usage and quotas count in. */
export const periodOf = (at: Date = new Date()) => at.toISOString().slice(0, 7);

export const PERIOD_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

/** When a period's quotas reset: the first instant of the next month (UTC). */
export function periodEnd(period: string): Date {
  const [year, month] = period.split('-').map(Number);
  return new Date(Date.UTC(year, month, 1));
}

/** The first instant of a period (UTC). */
export function periodStart(period: string): Date {
  const [year, month] = period.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, 1));
}

export interface Reservation {
  /** The metering record (`marketplace_usage.id`). */
  recordId: string;
  /** Runs counted this period, this one included. */
  used: number;
}

export interface MeteringStatements {
  /** Counts one run and inserts its record, or answers null when the quota is used up. */
  reserve(input: {
    userId: string;
    itemId: string;
    kind: MeteringKind;
    tier: Tier;
    limit: number;
    period?: string;
  }): Promise<Reservation | null>;
  /** Writes a run's outcome on its record (failed runs are never charged). */
  finish(
    recordId: string,
    outcome: { durationMs: number; success: boolean; errorCode?: string; error?: string; priceCents: number },
  ): Promise<void>;
  /**
   * Takes back a run refused before it was taken (its record and its count, in one statement):
   * refusals never count against the quota.
   */
  release(recordId: string): Promise<void>;
  /** Runs counted for the user, item and period (0 when none). */
  used(userId: string, itemId: string, period?: string): Promise<number>;
}

const RESERVE_SQL = `with reserved as (
    insert into marketplace_quota_counters as c (user_id, item_id, period, used) values ($1, $2, $3, 1)
    on conflict (user_id, item_id, period) do update set used = c.used + 1 where c.used < $4
    returning c.used
  ), metered as (
    insert into marketplace_usage (user_id, item_id, kind, tier, period, started_at)
    select $1, $2, $5, $6, $3, now() from reserved
    returning id
  )
  select metered.id::text as id, reserved.used from metered, reserved`;

const FINISH_SQL = `update marketplace_usage set finished_at = now(), duration_ms = $2, success = $3, error_code = $4,
  error = $5, price_cents = $6 where id = $1`;

const RELEASE_SQL = `with released as (
    delete from marketplace_usage where id = $1 returning user_id, item_id, period
  )
  update marketplace_quota_counters c set used = c.used - 1 from released r
  where c.user_id = r.user_id and c.item_id = r.item_id and c.period = r.period`;

const USED_SQL = `select used from marketplace_quota_counters where user_id = $1 and item_id = $2 and period = $3`;

const statements = new WeakMap<Knex, MeteringStatements>();

/** The metering statements on a process's pool (prepared once per connection). */
export function metering(knex: Knex): MeteringStatements {
  let found = statements.get(knex);
  if (found) return found;
  const reserve = preparedStatement<{ id: string; used: number }>(knex, 'mkt_reserve_run', RESERVE_SQL);
  const finish = preparedStatement(knex, 'mkt_finish_run', FINISH_SQL);
  const release = preparedStatement(knex, 'mkt_release_run', RELEASE_SQL);
  const used = preparedStatement<{ used: number }>(knex, 'mkt_quota_used', USED_SQL);
  found = {
    async reserve({ userId, itemId, kind, tier, limit, period = periodOf() }) {
      if (limit <= 0) return null;
      const [row] = await reserve([userId, itemId, period, limit, kind, tier]);
      return row ? { recordId: row.id, used: row.used } : null;
    },
    async finish(recordId, o) {
      await finish([
        recordId,
        Math.round(o.durationMs),
        o.success,
        o.success ? null : (o.errorCode ?? null),
        o.success ? null : (o.error?.slice(0, 2000) ?? null),
        o.success ? o.priceCents : 0,
      ]);
    },
    async release(recordId) {
      await release([recordId]);
    },
    async used(userId, itemId, period = periodOf()) {
      const [row] = await used([userId, itemId, period]);
      return row?.used ?? 0;
    },
  };
  statements.set(knex, found);
  return found;
}
