import type { EntityManager } from '@mikro-orm/postgresql';
import { findPublisherItem } from '../items/items.service';
import type { ANALYTICS_PERIODS } from './publisher.schemas';

const DAYS: Record<(typeof ANALYTICS_PERIODS)[number], number> = { '7d': 7, '30d': 30, '90d': 90 };

/** How many errors `topErrors` lists. */
const TOP_ERRORS = 5;

/**
 * GET /publisher/:id/analytics: the item's installs, and its runs in the window ending now, all
 * computed from the installations and the metering records (so they equal the runs made).
 * `successRate` and `avgExecutionTimeMs` count finished runs; revenue is successful runs × their
 * recorded price, all time and in the window.
 */
export async function itemAnalytics(
  em: EntityManager,
  publisherId: string,
  id: string,
  period: (typeof ANALYTICS_PERIODS)[number],
) {
  const item = await findPublisherItem(em, publisherId, id);
  const to = new Date();
  const from = new Date(to.getTime() - DAYS[period] * 86_400_000);
  const connection = em.getConnection();
  const [[installs], [runs], [revenue], errors] = await Promise.all([
    connection.execute<{ total: string; active: string }[]>(
      `select count(*) as total, count(*) filter (where status = 'active') as active
         from marketplace_installations where item_id = ?`,
      [id],
    ),
    connection.execute<
      {
        executions: string;
        finished: string;
        succeeded: string;
        failed: string;
        avg_ms: string | null;
        users: string;
      }[]
    >(
      `select count(*) as executions,
              count(*) filter (where success is not null) as finished,
              count(*) filter (where success) as succeeded,
              count(*) filter (where success = false) as failed,
              avg(duration_ms) filter (where success is not null) as avg_ms,
              count(distinct user_id) as users
         from marketplace_usage where item_id = ? and started_at >= ? and started_at <= ?`,
      [id, from, to],
    ),
    connection.execute<{ total: string; in_period: string }[]>(
      `select coalesce(sum(price_cents), 0) as total,
              coalesce(sum(price_cents) filter (where started_at >= ? and started_at <= ?), 0) as in_period
         from marketplace_usage where item_id = ?`,
      [from, to, id],
    ),
    connection.execute<{ code: string; count: string; last: Date }[]>(
      `select error_code as code, count(*) as count, max(started_at) as last
         from marketplace_usage
        where item_id = ? and success = false and started_at >= ? and started_at <= ?
        group by error_code order by count(*) desc, max(started_at) desc limit ?`,
      [id, from, to, TOP_ERRORS],
    ),
  ]);
  const finished = Number(runs.finished);
  return {
    itemId: item.id,
    period,
    from: from.toISOString(),
    to: to.toISOString(),
    metrics: {
      totalInstalls: Number(installs.total),
      activeInstalls: Number(installs.active),
      totalExecutions: Number(runs.executions),
      successRate: finished ? Math.round((Number(runs.succeeded) / finished) * 10_000) / 10_000 : 0,
      avgExecutionTimeMs: runs.avg_ms === null ? 0 : Math.round(Number(runs.avg_ms) * 10) / 10,
      errorCount: Number(runs.failed),
      uniqueUsers: Number(runs.users),
    },
    revenue: {
      totalCents: Number(revenue.total),
      periodCents: Number(revenue.in_period),
      currency: 'USD' as const,
    },
    topErrors: errors.map((e) => ({
      code: e.code ?? 'UNKNOWN',
      count: Number(e.count),
      lastOccurred: new Date(e.last).toISOString(),
    })),
  };
}
