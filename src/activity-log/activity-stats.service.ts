import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { validationFailed } from '../http/errors';
import type { ActivityStatsInput, StatsGroupBy } from './activities.schemas';
import { type StatsQuery, statsSource } from './activity-stats.sources';
import { parseMetricPath, statsWindow, toNumber } from './rules';

/** How groups are ordered: days chronologically, types and users by count (then key). */
const GROUP_ORDER: Record<StatsGroupBy | 'all', string> = {
  type: 'count desc, k asc',
  user: 'count desc, k asc nulls last',
  day: 'k asc',
  all: 'k asc',
};

interface GroupRow {
  k: string | null;
  count: number;
  measured: number | null;
  sum: string | null;
  avg: string | null;
  min: string | null;
  max: string | null;
  group_count: number;
  total: number;
  total_measured: number | null;
  total_sum: string | null;
  total_avg: string | null;
  total_min: string | null;
  total_max: string | null;
}

interface MetricFigures {
  measured: number;
  skipped: number;
  sum: number | null;
  avg: number | null;
  min: number | null;
  max: number | null;
}

const metricFigures = (
  count: number,
  measured: number | null,
  sum: string | null,
  avg: string | null,
  min: string | null,
  max: string | null,
): MetricFigures => ({
  measured: measured ?? 0,
  skipped: count - (measured ?? 0),
  sum: toNumber(sum),
  avg: toNumber(avg),
  min: toNumber(min),
  max: toNumber(max),
});

/** The query's window, metric path and filters; a bad window or metric path fails validation. */
function statsQuery(owner: Owner, query: ActivityStatsInput): StatsQuery {
  const window = statsWindow(query.from, query.to);
  if ('problem' in window) throw validationFailed([window.problem]);
  let segments: string[] | null = null;
  if (query.metric !== undefined) {
    const parsed = parseMetricPath(query.metric);
    if ('problem' in parsed) throw validationFailed([`metric: ${parsed.problem}`]);
    segments = parsed.segments;
  }
  const filters: string[] = [];
  const filterParams: unknown[] = [];
  if (query.type !== undefined) {
    filters.push('type = ?');
    filterParams.push(query.type);
  }
  if (query.userId !== undefined) {
    filters.push('user_id = ?');
    filterParams.push(query.userId);
  }
  return {
    input: query,
    window,
    segments,
    grouping: query.groupBy ?? 'all',
    filters,
    filterParams,
    ownerParams: [owner.accountId, owner.environment],
  };
}

/** The groups of the source's rows, each with the totals over all groups, in order, at most `limit`. */
function groupsSql(q: StatsQuery, sourceSql: string): string {
  const { grouping } = q;
  const metric = q.segments !== null;
  const metricColumns = metric
    ? `, sum(m)::int as measured, sum(s) as sum, sum(s) / nullif(sum(m), 0) as avg, min(lo) as min, max(hi) as max`
    : '';
  const totalColumns = metric
    ? `, (sum(measured) over ())::int as total_measured, (sum(sum) over ())::text as total_sum,
       (sum(sum) over () / nullif(sum(measured) over (), 0))::text as total_avg,
       (min(min) over ())::text as total_min, (max(max) over ())::text as total_max`
    : '';
  const keyOut = grouping === 'day' ? `to_char(k, 'YYYY-MM-DD')` : 'k';
  return `select ${keyOut} as k, count${metric ? ', measured, sum::text, avg::text, min::text, max::text' : ''},
      (count(*) over ())::int as group_count, (sum(count) over ())::int as total${totalColumns}
    from (select k, sum(c)::int as count${metricColumns} from (${sourceSql}) rows group by k) groups
    order by ${GROUP_ORDER[grouping]} limit ?`;
}

/** The API's answer from the group rows (one group `all` of 0 when ungrouped stats found nothing). */
function statsResult(q: StatsQuery, rows: GroupRow[]) {
  const { grouping, window, input: query } = q;
  const metric = q.segments !== null;
  const first = rows[0];
  const total = first?.total ?? 0;
  const groups = rows.map((r) => ({
    key: r.k,
    count: r.count,
    ...(metric ? metricFigures(r.count, r.measured, r.sum, r.avg, r.min, r.max) : {}),
  }));
  if (grouping === 'all' && groups.length === 0) {
    groups.push({ key: 'all', count: 0, ...(metric ? metricFigures(0, 0, null, null, null, null) : {}) });
  }
  return {
    total,
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    groupBy: query.groupBy ?? null,
    metric: query.metric ?? null,
    ...(metric
      ? metricFigures(
          total,
          first?.total_measured ?? 0,
          first?.total_sum ?? null,
          first?.total_avg ?? null,
          first?.total_min ?? null,
          first?.total_max ?? null,
        )
      : {}),
    groupCount: first?.group_count ?? (grouping === 'all' ? 1 : 0),
    groups,
  };
}

/**
 * Counts (and with `metric`, sum/avg/min/max of a numeric payload value) of the owner's activities
 * in a window, optionally grouped by type, UTC day or user. One SQL statement: the owner, window and
 * filters select an index range; without `metric` the payload is never read. Stats that are not by
 * user read the whole days of the window from the daily rollups kept by triggers in the writing
 * transaction (`activity_daily_counts`; with `metric`, `activity_daily_metrics`, when the path is at
 * most 4 object keys deep and no day of the window is stale after a delete or an update) and only the
 * two partial edge days from the rows. Stats by user (without a type filter) read whole ISO weeks and
 * the other whole days from the per-user rollups (counts; with `metric`, the per-user metric rollup
 * under the same conditions) and the edge days from the rows. From the rows, the value at the path is extracted once per row
 * and cast only when its JSON type is `number`; anything else (missing, string, object, …) is
 * counted in `skipped`.
 */
export async function activityStats(em: EntityManager, owner: Owner, query: ActivityStatsInput) {
  const q = statsQuery(owner, query);
  const knex = em.getConnection().getKnex();
  const source = await statsSource(knex, q);
  const { rows } = await knex.raw<{ rows: GroupRow[] }>(groupsSql(q, source.sql), [
    ...source.params,
    query.limit,
  ]);
  return statsResult(q, rows);
}
