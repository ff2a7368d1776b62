import { join, ranges, type Sql } from './sql';
import { DAY_MS, dayStart, splitWindow, type TimeWindow, utcDay } from './windows';

/**
 * The sessions analytics counts (docs/analytics.md "Test runs"): the rollups and the rows at a
 * window's edges hold the sessions that are not an agent-test run's; with `includeTestRuns` the
 * test runs' sessions of the window are added from their rows (an index of their own).
 */
export interface SessionScope {
  accountId: string;
  envs: string[];
  includeTestRuns: boolean;
}

const SESSION_DURATION_MS = `coalesce(round(extract(epoch from ("ended_at" - "started_at")) * 1000), 0)::bigint`;

/** The test runs' sessions started in a window, with `columns`. */
function testRunRows(scope: SessionScope, window: TimeWindow, columns: string): Sql {
  return {
    sql: `select ${columns} from "sessions" where "account_id" = ? and "environment" = any(?)
      and "test_run_id" is not null and "started_at" >= ? and "started_at" < ?`,
    bindings: [scope.accountId, scope.envs, new Date(window.from), new Date(window.to)],
  };
}

/**
 * Rows of the sessions started in a window: whole days from a rollup (`rollup` columns, rows with a
 * session), the partial days at its edges from the session rows (`edge` columns, index-only), and
 * the test runs' sessions when asked for.
 */
export function sessionRows(
  scope: SessionScope,
  window: TimeWindow,
  source: { rollup: string; columns: string; edgeColumns: string },
): Sql {
  const { accountId, envs } = scope;
  const { days, edges } = splitWindow(window);
  const parts: Sql[] = [];
  if (days) {
    parts.push({
      sql: `select ${source.columns} from "${source.rollup}"
        where "account_id" = ? and "environment" = any(?) and "day" >= ?::date and "day" < ?::date and "sessions" > 0`,
      bindings: [accountId, envs, days.from, days.to],
    });
  }
  if (edges.length) {
    const r = ranges('"started_at"', edges);
    parts.push({
      sql: `select ${source.edgeColumns} from "sessions" where "account_id" = ? and "environment" = any(?) and "test_run_id" is null and (${r.sql})`,
      bindings: [accountId, envs, ...r.bindings],
    });
  }
  if (scope.includeTestRuns) parts.push(testRunRows(scope, window, source.edgeColumns));
  return join(parts, ' union all ');
}

/** User ids (one row per user and day at most). */
export const USERS = { rollup: 'session_user_days', columns: '"user_id"', edgeColumns: '"user_id"' };
/** Per persona and day: sessions, ended ones, their summed duration. */
export const PERSONA_TOTALS = {
  rollup: 'session_persona_days',
  columns: '"persona_id", "sessions", "ended", "duration_ms_sum"',
  edgeColumns: `"persona_id", 1 as "sessions", ("ended_at" is not null)::int as "ended", ${SESSION_DURATION_MS} as "duration_ms_sum"`,
};
/** Persona and user pairs. */
export const PERSONA_USERS = {
  rollup: 'session_days',
  columns: '"persona_id", "user_id"',
  edgeColumns: '"persona_id", "user_id"',
};

/**
 * The users of a window that ends now: those whose latest day with a session is the window's first
 * whole day or later (`session_users`, one index range), and those with a session in the partial
 * day before it (the rows). Assumes no session starts after the window's end (now, to the minute).
 */
export function currentWindowUsers(scope: SessionScope, window: TimeWindow): Sql {
  const { accountId, envs } = scope;
  const firstWholeDay = utcDay(window.from + DAY_MS - 1);
  const firstWholeDayStart = dayStart(firstWholeDay);
  const parts: Sql[] = [
    {
      sql: `select "user_id" from "session_users" where "account_id" = ? and "environment" = any(?) and "last_day" >= ?::date`,
      bindings: [accountId, envs, firstWholeDay],
    },
  ];
  if (window.from < firstWholeDayStart) {
    parts.push({
      sql: `select "user_id" from "sessions" where "account_id" = ? and "environment" = any(?) and "test_run_id" is null and "started_at" >= ? and "started_at" < ?`,
      bindings: [accountId, envs, new Date(window.from), new Date(firstWholeDayStart)],
    });
  }
  if (scope.includeTestRuns) parts.push(testRunRows(scope, window, '"user_id"'));
  return join(parts, ' union all ');
}

/**
 * Distinct users per UTC day from `from` to `to` (inclusive). One environment, without test runs:
 * the kept daily count; else distinct over the users of each day (and the test runs' users).
 */
export function dailyUsers(scope: SessionScope, from: string, to: string): Sql {
  const { accountId, envs } = scope;
  if (envs.length === 1 && !scope.includeTestRuns) {
    return {
      sql: `select "day"::text as day, "users" from "session_day_users"
           where "account_id" = ? and "environment" = any(?) and "day" between ?::date and ?::date`,
      bindings: [accountId, envs, from, to],
    };
  }
  const days: Sql[] = [
    {
      sql: `select "day", "user_id" from "session_user_days"
        where "account_id" = ? and "environment" = any(?) and "day" between ?::date and ?::date and "sessions" > 0`,
      bindings: [accountId, envs, from, to],
    },
  ];
  if (scope.includeTestRuns) {
    const window = { from: dayStart(from), to: dayStart(to) + DAY_MS };
    days.push(testRunRows(scope, window, `("started_at" at time zone 'UTC')::date as "day", "user_id"`));
  }
  const rows = join(days, ' union all ');
  return {
    sql: `select "day"::text as day, count(*) as users from (
        select "day", "user_id" from (${rows.sql}) d group by "day", "user_id") u
      group by "day"`,
    bindings: rows.bindings,
  };
}
