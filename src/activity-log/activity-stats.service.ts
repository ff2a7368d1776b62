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

/** Whether the metric rollups keep a path: at most 4 segments, none of them an array index. */
const metricRollupKeeps = (segments: string[]) =>
  segments.length <= METRIC_ROLLUP_DEPTH && !segments.some((seg) => /^\d+$/.test(seg));

interface UserRollupRange {
  unit: 'day' | 'week';
  from: Date;
  to: Date;
}

/**
 * The whole days `[start, end)` as ranges of the user rollups: the whole ISO weeks from the weekly
 * tables, the days before and after them from the daily ones (empty ranges left out).
 */
function userRollupRanges(start: Date, end: Date): UserRollupRange[] {
  const weeks = wholeWeeks(start, end);
  const ranges: UserRollupRange[] = weeks
    ? [
        { unit: 'day', from: start, to: weeks.start },
        { unit: 'week', from: weeks.start, to: weeks.end },
        { unit: 'day', from: weeks.end, to: end },
      ]
    : [{ unit: 'day', from: start, to: end }];
  return ranges.filter((r) => r.from.getTime() < r.to.getTime());
}

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
 * two partial edge days from the rows. Stats by user (without a type filter) read whole ISO weeks and
 * the other whole days from the per-user rollups (counts; with `metric`, the per-user metric rollup
 * under the same conditions) and the edge days from the rows. From the rows, the value at the path is extracted once per row
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
  const kept = segments === null || metricRollupKeeps(segments);
  let days = byUser || !kept ? null : wholeDays(window.from, window.to);
  if (days && segments) {
    const stale =
      (
        await knex.raw<{ rows: unknown[] }>(
          `select 1 from activity_daily_metrics where account_id = ? and environment = ? and path = ?::text[]
             and day >= ?::date and day < ?::date and stale limit 1`,
          [...ownerParams, segments, utcDate(days.start), utcDate(days.end)],
        )
      ).rows.length > 0;
    if (stale) days = null;
  }
  // Stats by user (groupBy=user, or a userId filter; no type filter; with a metric, one the rollup
  // keeps): whole ISO weeks from the weekly user rollups, the other whole days from the daily ones
  // (counts from `activity_user_weeks` / `activity_user_days`, metric figures from
  // `activity_user_week_metrics` / `activity_user_day_metrics`), the edge days from the rows. With a
  // metric, a stale row among the covered ones (this user's, with a userId filter) reads the rows.
  const userDays =
    byUser && kept && query.type === undefined && grouping !== 'type' && grouping !== 'day'
      ? wholeDays(window.from, window.to)
      : null;
  const userKey = grouping === 'user' ? `nullif(user_key, '')` : GROUP_KEYS[grouping];
  const inUserRange = (unit: UserRollupRange['unit']) =>
    `account_id = ? and environment = ? and ${unit} >= ?::date and ${unit} < ?::date${query.userId !== undefined ? ' and user_key = ?' : ''}`;
  const userRangeParams = (r: UserRollupRange) => [
    ...ownerParams,
    utcDate(r.from),
    utcDate(r.to),
    ...(query.userId !== undefined ? [query.userId] : []),
  ];
  let userRanges = userDays ? userRollupRanges(userDays.start, userDays.end) : null;
  if (userRanges && segments) {
    const path = segments; // narrowed for the callback
    const stale = userRanges.map((r) => ({
      sql: `select 1 from activity_user_${r.unit}_metrics where path = ?::text[] and ${inUserRange(r.unit)} and stale`,
      params: [path, ...userRangeParams(r)],
    }));
    const { rows } = await knex.raw<{ rows: unknown[] }>(
      `${stale.map((p) => p.sql).join(' union all ')} limit 1`,
      stale.flatMap((p) => p.params),
    );
    if (rows.length > 0) userRanges = null;
  }
  let source: { sql: string; params: unknown[] };
  if (userDays && userRanges) {
    const noMetric = segments ? ', 0 as m, null::numeric as s, null::numeric as lo, null::numeric as hi' : '';
    const parts: { sql: string; params: unknown[] }[] = userRanges.map((r) => ({
      sql: `select ${userKey} as k, count as c${noMetric} from activity_user_${r.unit}s where ${inUserRange(r.unit)} and count > 0`,
      params: userRangeParams(r),
    }));
    if (segments) {
      for (const r of userRanges) {
        parts.push({
          sql: `select ${userKey} as k, 0 as c, measured as m, sum as s, min as lo, max as hi
                 from activity_user_${r.unit}_metrics where path = ?::text[] and ${inUserRange(r.unit)}`,
          params: [segments, ...userRangeParams(r)],
        });
      }
    }
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
