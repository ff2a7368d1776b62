/**
 * Where activity stats read the rows they group: the daily rollups, the per-user rollups or the
 * activities themselves, as one SQL source of (k, c[, m, s, lo, hi]) rows (see `activityStats`).
 */
import type { Knex } from 'knex';
import type { ActivityStatsInput, StatsGroupBy } from './activities.schemas';
import { utcDate, wholeDays, wholeWeeks } from './rules';

/** The SQL key of each `groupBy` (the day is the UTC calendar day). */
const GROUP_KEYS: Record<StatsGroupBy | 'all', string> = {
  type: 'type',
  user: 'user_id',
  day: `(occurred_at at time zone 'UTC')::date`,
  all: `'all'::text`,
};

/** How deep the metric rollup (`activity_daily_metrics`) follows payload objects. */
const METRIC_ROLLUP_DEPTH = 4;

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

/** A piece of SQL with its bound parameters. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/** Parts joined with `union all`, their parameters in order. */
const unionAll = (parts: SqlPart[]): SqlPart => ({
  sql: parts.map((p) => p.sql).join(' union all '),
  params: parts.flatMap((p) => p.params),
});

/** A stats query checked and taken apart: its window, metric path, grouping and filters. */
export interface StatsQuery {
  input: ActivityStatsInput;
  window: { from: Date; to: Date };
  /** The metric path's segments; null without `metric`. */
  segments: string[] | null;
  grouping: StatsGroupBy | 'all';
  /** The `type` and `userId` filters, as conditions on `activities` and the daily rollups. */
  filters: string[];
  filterParams: unknown[];
  /** The owner's account and environment, for `account_id = ? and environment = ?`. */
  ownerParams: unknown[];
}

/** Whether the stats are split by user (groupBy=user, or a userId filter). */
const byUser = (q: StatsQuery) => q.input.userId !== undefined || q.grouping === 'user';

/** Whether the rollups can answer the query: no metric, or one whose path the metric rollups keep. */
const rollupsKeep = (q: StatsQuery) => q.segments === null || metricRollupKeeps(q.segments);

/**
 * Rows of `activities` with occurred_at in the given range, as (k, c = 1[, m, s, lo, hi]): with a
 * metric, m is 1 when the value at the path is a JSON number (s, lo, hi that number), else 0.
 */
function rowsBetween(q: StatsQuery, range: string, rangeParams: unknown[]): SqlPart {
  const { segments, grouping } = q;
  const where = ['account_id = ?', 'environment = ?', range, ...q.filters].join(' and ');
  return segments
    ? {
        sql: `select k, 1 as c, (n is not null)::int as m, n as s, n as lo, n as hi from (
             select ${GROUP_KEYS[grouping]} as k,
               case when jsonb_typeof(payload #> ?::text[]) = 'number' then (payload #> ?::text[])::numeric end as n
             from activities where ${where}) r`,
        params: [segments, segments, ...q.ownerParams, ...rangeParams, ...q.filterParams],
      }
    : {
        sql: `select ${GROUP_KEYS[grouping]} as k, 1 as c from activities where ${where}`,
        params: [...q.ownerParams, ...rangeParams, ...q.filterParams],
      };
}

/** The rows of the partial days at the window's edges, before and after the whole days `covered`. */
const edgeRows = (q: StatsQuery, covered: { start: Date; end: Date }): SqlPart[] => [
  rowsBetween(q, 'occurred_at >= ? and occurred_at < ?', [q.window.from, covered.start]),
  rowsBetween(q, 'occurred_at >= ? and occurred_at <= ?', [covered.end, q.window.to]),
];

/**
 * The whole days that stats not split by user read from the daily rollups (counts; with a metric,
 * its numeric values too, when the path is one the rollup keeps and no day of the window is stale),
 * or null to read the rows of the window.
 */
async function dailyRollupDays(knex: Knex, q: StatsQuery): Promise<{ start: Date; end: Date } | null> {
  if (byUser(q) || !rollupsKeep(q)) return null;
  const days = wholeDays(q.window.from, q.window.to);
  if (!days || !q.segments) return days;
  const stale =
    (
      await knex.raw<{ rows: unknown[] }>(
        `select 1 from activity_daily_metrics where account_id = ? and environment = ? and path = ?::text[]
             and day >= ?::date and day < ?::date and stale limit 1`,
        [...q.ownerParams, q.segments, utcDate(days.start), utcDate(days.end)],
      )
    ).rows.length > 0;
  return stale ? null : days;
}

/** The whole days from the daily rollups, the partial days at the window's edges from the rows. */
function dailyRollupSource(q: StatsQuery, days: { start: Date; end: Date }): SqlPart {
  const { segments, grouping } = q;
  const rollupKey = grouping === 'day' ? 'd.day' : grouping === 'type' ? 'd.type' : GROUP_KEYS[grouping];
  const dayWhere = [
    'd.account_id = ?',
    'd.environment = ?',
    'd.day >= ?::date',
    'd.day < ?::date',
    'd.count > 0',
    ...q.filters.map((f) => `d.${f}`),
  ].join(' and ');
  const dayParams = [...q.ownerParams, utcDate(days.start), utcDate(days.end), ...q.filterParams];
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
  return unionAll([rollup, ...edgeRows(q, days)]);
}

/** A range of a user rollup: the owner's rows (this user's, with a userId filter) in it. */
const inUserRange = (q: StatsQuery, unit: UserRollupRange['unit']) =>
  `account_id = ? and environment = ? and ${unit} >= ?::date and ${unit} < ?::date${q.input.userId !== undefined ? ' and user_key = ?' : ''}`;

/** The parameters of `inUserRange`. */
const userRangeParams = (q: StatsQuery, r: UserRollupRange) => [
  ...q.ownerParams,
  utcDate(r.from),
  utcDate(r.to),
  ...(q.input.userId !== undefined ? [q.input.userId] : []),
];

/** The whole days of the window as user rollup ranges, and the days they cover. */
interface UserRollupCover {
  days: { start: Date; end: Date };
  ranges: UserRollupRange[];
}

/**
 * What stats by user (groupBy=user, or a userId filter; no type filter; with a metric, one the
 * rollup keeps) read from the user rollups: whole ISO weeks from the weekly ones, the other whole
 * days from the daily ones. Null to read the rows: with a metric, when a covered row (this user's,
 * with a userId filter) is stale.
 */
async function userRollupCover(knex: Knex, q: StatsQuery): Promise<UserRollupCover | null> {
  const { segments, grouping } = q;
  const eligible =
    byUser(q) && rollupsKeep(q) && q.input.type === undefined && grouping !== 'type' && grouping !== 'day';
  const days = eligible ? wholeDays(q.window.from, q.window.to) : null;
  if (!days) return null;
  const ranges = userRollupRanges(days.start, days.end);
  if (segments) {
    const stale = unionAll(
      ranges.map((r) => ({
        sql: `select 1 from activity_user_${r.unit}_metrics where path = ?::text[] and ${inUserRange(q, r.unit)} and stale`,
        params: [segments, ...userRangeParams(q, r)],
      })),
    );
    const { rows } = await knex.raw<{ rows: unknown[] }>(`${stale.sql} limit 1`, stale.params);
    if (rows.length > 0) return null;
  }
  return { days, ranges };
}

/**
 * Stats by user from the user rollups: counts from `activity_user_weeks` / `activity_user_days`,
 * metric figures from `activity_user_week_metrics` / `activity_user_day_metrics`, the partial days
 * at the window's edges from the rows.
 */
function userRollupSource(q: StatsQuery, cover: UserRollupCover): SqlPart {
  const { segments, grouping } = q;
  const userKey = grouping === 'user' ? `nullif(user_key, '')` : GROUP_KEYS[grouping];
  const noMetric = segments ? ', 0 as m, null::numeric as s, null::numeric as lo, null::numeric as hi' : '';
  const parts: SqlPart[] = cover.ranges.map((r) => ({
    sql: `select ${userKey} as k, count as c${noMetric} from activity_user_${r.unit}s where ${inUserRange(q, r.unit)} and count > 0`,
    params: userRangeParams(q, r),
  }));
  if (segments) {
    for (const r of cover.ranges) {
      parts.push({
        sql: `select ${userKey} as k, 0 as c, measured as m, sum as s, min as lo, max as hi
                 from activity_user_${r.unit}_metrics where path = ?::text[] and ${inUserRange(q, r.unit)}`,
        params: [segments, ...userRangeParams(q, r)],
      });
    }
  }
  parts.push(...edgeRows(q, cover.days));
  return unionAll(parts);
}

/**
 * The rows the stats group, as (k, c[, m, s, lo, hi]): from the user rollups, the daily rollups or
 * (when neither can answer) the rows of the window.
 */
export async function statsSource(knex: Knex, q: StatsQuery): Promise<SqlPart> {
  const days = await dailyRollupDays(knex, q);
  const userCover = await userRollupCover(knex, q);
  if (userCover) return userRollupSource(q, userCover);
  if (days) return dailyRollupSource(q, days);
  return rowsBetween(q, 'occurred_at >= ? and occurred_at <= ?', [q.window.from, q.window.to]);
}
