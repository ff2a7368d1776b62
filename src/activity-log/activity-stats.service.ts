import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { validationFailed } from '../http/errors';
import type { ActivityStatsInput, StatsGroupBy } from './activities.schemas';
import { parseMetricPath, statsWindow, toNumber } from './rules';

/** The SQL key of each `groupBy` (the day is the UTC calendar day). */
const GROUP_KEYS: Record<StatsGroupBy | 'all', string> = {
  type: 'type',
  user: 'user_id',
  day: `(occurred_at at time zone 'UTC')::date`,
  all: `'all'::text`,
};

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

/**
 * Counts (and with `metric`, sum/avg/min/max of a numeric payload value) of the owner's activities
 * in a window, optionally grouped by type, UTC day or user. One SQL statement: the owner, window and
 * filters select an index range; without `metric` the payload is never read (index-only scans).
 * With `metric`, the value at the path is extracted once per row and cast only when its JSON type
 * is `number`; anything else (missing, string, object, …) is counted in `skipped`.
 */
export async function activityStats(em: EntityManager, owner: Owner, query: ActivityStatsInput) {
  const window = statsWindow(query.from, query.to);
  if ('problem' in window) throw validationFailed([window.problem]);
  let segments: string[] | null = null;
  if (query.metric !== undefined) {
    const parsed = parseMetricPath(query.metric);
    if ('problem' in parsed) throw validationFailed([`metric: ${parsed.problem}`]);
    segments = parsed.segments;
  }
  const grouping = query.groupBy ?? 'all';

  const where = ['account_id = ?', 'environment = ?', 'occurred_at >= ?', 'occurred_at <= ?'];
  const whereParams: unknown[] = [owner.accountId, owner.environment, window.from, window.to];
  if (query.type !== undefined) {
    where.push('type = ?');
    whereParams.push(query.type);
  }
  if (query.userId !== undefined) {
    where.push('user_id = ?');
    whereParams.push(query.userId);
  }

  const metric = segments !== null;
  const inner = metric
    ? `select ${GROUP_KEYS[grouping]} as k,
         case when jsonb_typeof(payload #> ?::text[]) = 'number' then (payload #> ?::text[])::numeric end as n
       from activities where ${where.join(' and ')}`
    : `select ${GROUP_KEYS[grouping]} as k from activities where ${where.join(' and ')}`;
  const innerParams = metric ? [segments, segments, ...whereParams] : whereParams;
  const metricColumns = metric
    ? `, count(n)::int as measured, sum(n) as sum, avg(n) as avg, min(n) as min, max(n) as max`
    : '';
  const totalColumns = metric
    ? `, (sum(measured) over ())::int as total_measured, (sum(sum) over ())::text as total_sum,
       (sum(sum) over () / nullif(sum(measured) over (), 0))::text as total_avg,
       (min(min) over ())::text as total_min, (max(max) over ())::text as total_max`
    : '';
  const keyOut = grouping === 'day' ? `to_char(k, 'YYYY-MM-DD')` : 'k';
  const sql = `select ${keyOut} as k, count${metric ? ', measured, sum::text, avg::text, min::text, max::text' : ''},
      (count(*) over ())::int as group_count, (sum(count) over ())::int as total${totalColumns}
    from (select k, count(*)::int as count${metricColumns} from (${inner}) rows group by k) groups
    order by ${GROUP_ORDER[grouping]} limit ?`;

  const { rows } = await em
    .getConnection()
    .getKnex()
    .raw<{ rows: GroupRow[] }>(sql, [...innerParams, query.limit]);

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
