import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { validationFailed } from '../http/errors';
import type { ActivityStatsInput, StatsGroupBy } from './activities.schemas';
import { parseMetricPath, statsWindow, toNumber, utcDate, wholeDays, wholeWeeks } from './rules';

/** The SQL key of each `groupBy` (the day is the UTC calendar day). */
const GROUP_KEYS: Record<StatsGroupBy | 'all', string> = {
  type: 'type',
  user: 'user_id',
  day: `(occurred_at at time zone 'UTC')::date`,
  all: `'all'::text`,
};

/** How deep the metric rollup (`activity_daily_metrics`) follows payload objects. */
const METRIC_ROLLUP_DEPTH = 4;

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
 * filters select an index range; without `metric` the payload is never read. Stats that are not by
 * user read the whole days of the window from the daily rollups kept by triggers in the writing
 * transaction (`activity_daily_counts`; with `metric`, `activity_daily_metrics`, when the path is at
 * most 4 object keys deep and no day of the window is stale after a delete or an update) and only the
 * two partial edge days from the rows. From the rows, the value at the path is extracted once per row
 * and cast only when its JSON type is `number`; anything else (missing, string, object, …) is
 * counted in `skipped`.
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
  const owned = ['account_id = ?', 'environment = ?'];
  const ownerParams = [owner.accountId, owner.environment];
  const knex = em.getConnection().getKnex();
  /**
   * Rows of `activities` with occurred_at in the given range, as (k, c = 1[, m, s, lo, hi]): with a
   * metric, m is 1 when the value at the path is a JSON number (s, lo, hi that number), else 0.
   */
  const rowsBetween = (range: string, rangeParams: unknown[]) => {
    const where = [...owned, range, ...filters].join(' and ');
    return segments
      ? {
          sql: `select k, 1 as c, (n is not null)::int as m, n as s, n as lo, n as hi from (
             select ${GROUP_KEYS[grouping]} as k,
               case when jsonb_typeof(payload #> ?::text[]) = 'number' then (payload #> ?::text[])::numeric end as n
             from activities where ${where}) r`,
          params: [segments, segments, ...ownerParams, ...rangeParams, ...filterParams],
        }
      : {
          sql: `select ${GROUP_KEYS[grouping]} as k, 1 as c from activities where ${where}`,
          params: [...ownerParams, ...rangeParams, ...filterParams],
        };
  };

  // Stats not split by user read whole days from the daily rollups (counts; with a metric, its
  // numeric values too, when the path is one the rollup keeps and no day of the window is stale) and
  // only the partial days at the window's edges from the rows; the rest reads the rows of the window.
  const byUser = query.userId !== undefined || grouping === 'user';
  let days = byUser ? null : wholeDays(window.from, window.to);
  if (days && segments) {
    const kept = segments.length <= METRIC_ROLLUP_DEPTH && !segments.some((seg) => /^\d+$/.test(seg));
    const stale =
      kept &&
      (
        await knex.raw<{ rows: unknown[] }>(
          `select 1 from activity_daily_metrics where account_id = ? and environment = ? and path = ?::text[]
             and day >= ?::date and day < ?::date and stale limit 1`,
          [...ownerParams, segments, utcDate(days.start), utcDate(days.end)],
        )
      ).rows.length > 0;
    if (!kept || stale) days = null;
  }
  let source: { sql: string; params: unknown[] };
  // Counts by user (groupBy=user, or a userId filter; no type filter, no metric): whole ISO weeks from
  // `activity_user_weeks`, the other whole days from `activity_user_days`, the edges from the rows.
  const userDays =
    byUser && !segments && query.type === undefined && grouping !== 'type' && grouping !== 'day'
      ? wholeDays(window.from, window.to)
      : null;
  if (userDays) {
    const weeks = wholeWeeks(userDays.start, userDays.end);
    const userKey = grouping === 'user' ? `nullif(user_key, '')` : GROUP_KEYS[grouping];
    const userFilter = query.userId !== undefined ? ' and user_key = ?' : '';
    const userParams = query.userId !== undefined ? [query.userId] : [];
    const ranges: [string, string, Date, Date][] = weeks
      ? [
          ['activity_user_days', 'day', userDays.start, weeks.start],
          ['activity_user_weeks', 'week', weeks.start, weeks.end],
          ['activity_user_days', 'day', weeks.end, userDays.end],
        ]
      : [['activity_user_days', 'day', userDays.start, userDays.end]];
    const parts: { sql: string; params: unknown[] }[] = ranges
      .filter(([, , from, to]) => from.getTime() < to.getTime())
      .map(([table, unit, from, to]) => ({
        sql: `select ${userKey} as k, count as c from ${table}
               where account_id = ? and environment = ? and ${unit} >= ?::date and ${unit} < ?::date and count > 0${userFilter}`,
        params: [...ownerParams, utcDate(from), utcDate(to), ...userParams],
      }));
    parts.push(
      rowsBetween('occurred_at >= ? and occurred_at < ?', [window.from, userDays.start]),
      rowsBetween('occurred_at >= ? and occurred_at <= ?', [userDays.end, window.to]),
    );
    source = {
      sql: parts.map((p) => p.sql).join(' union all '),
      params: parts.flatMap((p) => p.params),
    };
  } else if (days) {
    const rollupKey = grouping === 'day' ? 'd.day' : grouping === 'type' ? 'd.type' : GROUP_KEYS[grouping];
    const head = rowsBetween('occurred_at >= ? and occurred_at < ?', [window.from, days.start]);
    const tail = rowsBetween('occurred_at >= ? and occurred_at <= ?', [days.end, window.to]);
    const dayWhere = [
      'd.account_id = ?',
      'd.environment = ?',
      'd.day >= ?::date',
      'd.day < ?::date',
      'd.count > 0',
      ...filters.map((f) => `d.${f}`),
    ].join(' and ');
    const dayParams = [...ownerParams, utcDate(days.start), utcDate(days.end), ...filterParams];
    const rollup = segments
      ? {
          sql: `select ${rollupKey} as k, d.count as c, coalesce(m.measured, 0) as m, m.sum as s, m.min as lo, m.max as hi
                from activity_daily_counts d left join activity_daily_metrics m
                  on m.account_id = d.account_id and m.environment = d.environment and m.day = d.day
                 and m.type = d.type and m.path = ?::text[]
                where ${dayWhere}`,
          params: [segments, ...dayParams],
        }
      : {
          sql: `select ${rollupKey} as k, d.count as c from activity_daily_counts d where ${dayWhere}`,
          params: dayParams,
        };
    source = {
      sql: `${rollup.sql} union all ${head.sql} union all ${tail.sql}`,
      params: [...rollup.params, ...head.params, ...tail.params],
    };
  } else {
    source = rowsBetween('occurred_at >= ? and occurred_at <= ?', [window.from, window.to]);
  }

  const metric = segments !== null;
  const metricColumns = metric
    ? `, sum(m)::int as measured, sum(s) as sum, sum(s) / nullif(sum(m), 0) as avg, min(lo) as min, max(hi) as max`
    : '';
  const totalColumns = metric
    ? `, (sum(measured) over ())::int as total_measured, (sum(sum) over ())::text as total_sum,
       (sum(sum) over () / nullif(sum(measured) over (), 0))::text as total_avg,
       (min(min) over ())::text as total_min, (max(max) over ())::text as total_max`
    : '';
  const keyOut = grouping === 'day' ? `to_char(k, 'YYYY-MM-DD')` : 'k';
  const sql = `select ${keyOut} as k, count${metric ? ', measured, sum::text, avg::text, min::text, max::text' : ''},
      (count(*) over ())::int as group_count, (sum(count) over ())::int as total${totalColumns}
    from (select k, sum(c)::int as count${metricColumns} from (${source.sql}) rows group by k) groups
    order by ${GROUP_ORDER[grouping]} limit ?`;

  const { rows } = await knex.raw<{ rows: GroupRow[] }>(sql, [...source.params, query.limit]);

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
