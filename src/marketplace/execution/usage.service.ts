import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/errors';
import { MarketplaceItem } from '../items/item.entity';
import { quotaLimit } from '../items/manifest';
import type { Tier } from '../items/statuses';
import { type ItemForUser, isGone, itemForUser, quotaState } from './execution.service';
import { periodEnd, periodOf, periodStart } from './metering';

async function knownItem(
  em: EntityManager,
  itemId: string,
  userId: string,
  period: string,
): Promise<ItemForUser> {
  const item = await itemForUser(em.getConnection().getKnex(), itemId, userId, period);
  if (!item || item.status === 'pending_review' || item.status === 'rejected') throw notFound('Item');
  return item;
}

/**
 * GET /usage/:itemId: the user's runs of the item in a calendar month (default this one), from the
 * metering records: totals, and one breakdown entry per day with runs. `quotaUsed` is the quota
 * counter (which equals the records counted), `quotaLimit` the limit of the caller's tier.
 */
export async function itemUsage(
  em: EntityManager,
  userId: string,
  tier: Tier,
  itemId: string,
  period = periodOf(),
) {
  const item = await knownItem(em, itemId, userId, period);
  const days = await em.getConnection().execute<{ date: string; executions: string; time_ms: string }[]>(
    `select to_char(started_at at time zone 'UTC', 'YYYY-MM-DD') as date, count(*) as executions,
            coalesce(sum(duration_ms), 0) as time_ms
       from marketplace_usage where user_id = ? and item_id = ? and period = ?
      group by 1 order by 1`,
    [userId, itemId, period],
  );
  const breakdown = days.map((d) => ({
    date: d.date,
    executions: Number(d.executions),
    executionTimeMs: Number(d.time_ms),
  }));
  return {
    itemId,
    period,
    userId,
    tier,
    totals: {
      executions: breakdown.reduce((n, d) => n + d.executions, 0),
      executionTimeMs: breakdown.reduce((n, d) => n + d.executionTimeMs, 0),
      quotaUsed: item.used,
      quotaLimit: quotaLimit(item.manifest, tier),
    },
    breakdown,
  };
}

/** GET /usage/summary: every item the user ran in the month, with the same totals, and their sum. */
export async function usageSummary(em: EntityManager, userId: string, tier: Tier, period = periodOf()) {
  const rows = await em
    .getConnection()
    .execute<{ item_id: string; executions: string; time_ms: string; used: number | null }[]>(
      `select u.item_id, count(*) as executions, coalesce(sum(u.duration_ms), 0) as time_ms, max(c.used) as used
       from marketplace_usage u
       left join marketplace_quota_counters c on c.user_id = u.user_id and c.item_id = u.item_id and c.period = u.period
      where u.user_id = ? and u.period = ?
      group by u.item_id order by u.item_id`,
      [userId, period],
    );
  const items = rows.length ? await em.find(MarketplaceItem, { id: rows.map((r) => r.item_id) }) : [];
  const entries = rows.map((r) => {
    const item = items.find((i) => i.id === r.item_id);
    return {
      itemId: r.item_id,
      totals: {
        executions: Number(r.executions),
        executionTimeMs: Number(r.time_ms),
        quotaUsed: r.used ?? 0,
        quotaLimit: item ? quotaLimit(item.manifest, tier) : 0,
      },
    };
  });
  return {
    period,
    userId,
    tier,
    aggregate: {
      totalExecutions: entries.reduce((n, e) => n + e.totals.executions, 0),
      totalTimeMs: entries.reduce((n, e) => n + e.totals.executionTimeMs, 0),
      itemCount: entries.length,
    },
    items: entries,
  };
}

/**
 * GET /quota/check/:itemId: whether the user may run the item now, and the quota of their tier this
 * month. Always 200 for a known item; `allowed` is false with a `reason` when the quota is used up,
 * the item is not installed, was removed, or cannot be run.
 */
export async function quotaCheck(em: EntityManager, userId: string, tier: Tier, itemId: string) {
  const period = periodOf();
  const item = await knownItem(em, itemId, userId, period);
  const limit = quotaLimit(item.manifest, tier);
  const quota = quotaState(period, item.used, limit);
  let reason: string | null = null;
  if (isGone(item)) reason = `Item ${itemId} was removed from the marketplace`;
  else if (item.installationStatus !== 'active')
    reason = `Item ${itemId} is not installed for user ${userId}`;
  else if (item.type !== 'tool') reason = `Item ${itemId} is an agent; agents run as voice sessions`;
  else if (item.used >= limit) {
    reason = `Monthly quota of ${limit} executions for the ${tier} tier is used up; it resets at ${quota.resetsAt}`;
  }
  return {
    allowed: reason === null,
    reason,
    quotaUsed: item.used,
    quotaLimit: limit,
    remainingQuota: quota.remaining,
    period,
    resetsAt: quota.resetsAt,
  };
}

export { periodEnd, periodStart };
