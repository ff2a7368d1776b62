import type { Knex } from 'knex';
import type { z } from 'zod';
import type {
  AnalyticsOverview,
  ErrorEntry,
  PeriodQueryInput,
  PersonaEntry,
  SessionPeriodQueryInput,
  UsageEntry,
  UsageQueryInput,
} from './analytics.schemas';
import { apiCallRows } from './api-call-rows';
import { RUNTIME_FAILURE_MESSAGES, type RuntimeFailureCode } from './codes';
import {
  currentWindowUsers,
  dailyUsers,
  PERSONA_TOTALS,
  PERSONA_USERS,
  type SessionScope,
  sessionRows,
  USERS,
} from './session-rows';
import { successByPersona } from './success-rates';
import {
  change,
  daysBetween,
  environmentsOf,
  type Period,
  periodWindows,
  type TimeWindow,
  usageRange,
} from './windows';

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const iso = (ms: number) => new Date(ms).toISOString();

interface WindowFigures {
  calls: number;
  errors: number;
  latencyMsSum: number;
  users: number;
  personas: number;
}

async function windowFigures(knex: Knex, scope: SessionScope, window: TimeWindow, endsNow: boolean) {
  const calls = apiCallRows(scope.accountId, scope.envs, window);
  const users = endsNow ? currentWindowUsers(scope, window) : sessionRows(scope, window, USERS);
  const personas = sessionRows(scope, window, PERSONA_TOTALS);
  const [api, people] = await Promise.all([
    knex.raw<{ rows: { calls: string | null; errors: string | null; latency: number | null }[] }>(
      `select sum("calls") as calls, sum("calls") filter (where "error_code" <> '') as errors, sum("latency_ms_sum") as latency
       from (${calls.sql}) c`,
      calls.bindings,
    ),
    knex.raw<{ rows: { users: string; personas: string }[] }>(
      `select (select count(*) from (select "user_id" from (${users.sql}) u group by "user_id") x) as users,
              (select count(*) from (select "persona_id" from (${personas.sql}) p group by "persona_id") y) as personas`,
      [...users.bindings, ...personas.bindings],
    ),
  ]);
  const a = api.rows[0];
  const p = people.rows[0];
  return {
    calls: num(a?.calls),
    errors: num(a?.errors),
    latencyMsSum: num(a?.latency),
    users: num(p?.users),
    personas: num(p?.personas),
  } satisfies WindowFigures;
}

const errorRate = (f: WindowFigures) => (f.calls === 0 ? 0 : f.errors / f.calls);
const avgResponseTime = (f: WindowFigures) => (f.calls === 0 ? 0 : f.latencyMsSum / f.calls);

/** Whose sessions count: the account's, of the environments asked for, test runs only if asked for. */
const scopeOf = (
  accountId: string,
  query: { environment: PeriodQueryInput['environment']; includeTestRuns: boolean },
): SessionScope => ({
  accountId,
  envs: environmentsOf(query.environment),
  includeTestRuns: query.includeTestRuns,
});

/** The period's window and the previous one's start, as the answers show them. */
function windowOf(period: Period, now: number) {
  const { current, previous } = periodWindows(period, now);
  return {
    current,
    previous,
    shown: { period, from: iso(current.from), to: iso(current.to), previousFrom: iso(previous.from) },
  };
}

export async function analyticsOverview(
  knex: Knex,
  accountId: string,
  query: SessionPeriodQueryInput,
  now = Date.now(),
) {
  const scope = scopeOf(accountId, query);
  const { current, previous, shown } = windowOf(query.period, now);
  const [cur, prev] = await Promise.all([
    windowFigures(knex, scope, current, true),
    windowFigures(knex, scope, previous, false),
  ]);
  const overview: z.input<typeof AnalyticsOverview> = {
    totalApiCalls: cur.calls,
    totalApiCallsChange: change(cur.calls, prev.calls),
    uniqueUsers: cur.users,
    uniqueUsersChange: change(cur.users, prev.users),
    activePersonas: cur.personas,
    activePersonasChange: change(cur.personas, prev.personas),
    errorRate: errorRate(cur),
    errorRateChange: change(errorRate(cur), errorRate(prev)),
    avgResponseTime: avgResponseTime(cur),
    avgResponseTimeChange: change(avgResponseTime(cur), avgResponseTime(prev)),
  };
  return { overview, ...shown };
}

export async function analyticsUsage(
  knex: Knex,
  accountId: string,
  query: UsageQueryInput,
  now = Date.now(),
) {
  const scope = scopeOf(accountId, query);
  const envs = scope.envs;
  const { from, to } = usageRange(query, now);
  const users = dailyUsers(scope, from, to);
  const [api, people] = await Promise.all([
    knex.raw<{ rows: { day: string; calls: string; errors: string | null }[] }>(
      `select "day"::text as day, sum("calls") as calls, sum("calls") filter (where "error_code" <> '') as errors
       from "api_call_days" where "account_id" = ? and "environment" = any(?) and "day" between ?::date and ?::date
       group by "day"`,
      [accountId, envs, from, to],
    ),
    knex.raw<{ rows: { day: string; users: string }[] }>(users.sql, users.bindings),
  ]);
  const calls = new Map(api.rows.map((r) => [r.day, r]));
  const usersByDay = new Map(people.rows.map((r) => [r.day, num(r.users)]));
  const usage: z.input<typeof UsageEntry>[] = daysBetween(from, to).map((date) => ({
    date,
    apiCalls: num(calls.get(date)?.calls),
    uniqueUsers: usersByDay.get(date) ?? 0,
    errors: num(calls.get(date)?.errors),
  }));
  return { usage, from, to };
}

/** The name shown for sessions of a persona that no longer exists. */
export const DELETED_PERSONA_NAME = '(deleted persona)';

export async function analyticsPersonas(
  knex: Knex,
  accountId: string,
  query: SessionPeriodQueryInput,
  now = Date.now(),
) {
  const scope = scopeOf(accountId, query);
  const { current, shown } = windowOf(query.period, now);
  const totals = sessionRows(scope, current, PERSONA_TOTALS);
  const pairs = sessionRows(scope, current, PERSONA_USERS);
  const [byPersona, usersByPersona, success] = await Promise.all([
    knex.raw<{
      rows: { persona_id: string; name: string | null; total: string; ended: string; duration: string }[];
    }>(
      `select g.*, p."name" from (
         select "persona_id", sum("sessions") as total, sum("ended") as ended, sum("duration_ms_sum") as duration
         from (${totals.sql}) s group by "persona_id") g
       left join "personas" p on p."id" = g."persona_id" and p."account_id" = ?
       order by g.total desc, g."persona_id"`,
      [...totals.bindings, accountId],
    ),
    knex.raw<{ rows: { persona_id: string; users: string }[] }>(
      `select "persona_id", count(*) as users from (
         select "persona_id", "user_id" from (${pairs.sql}) s group by "persona_id", "user_id") pu
       group by "persona_id"`,
      pairs.bindings,
    ),
    successByPersona(knex, scope, current),
  ]);
  const users = new Map(usersByPersona.rows.map((r) => [r.persona_id, num(r.users)]));
  const personas: z.input<typeof PersonaEntry>[] = byPersona.rows.map((r) => ({
    personaId: r.persona_id,
    personaName: r.name ?? DELETED_PERSONA_NAME,
    totalCalls: num(r.total),
    avgSessionDuration: num(r.ended) === 0 ? 0 : num(r.duration) / num(r.ended),
    uniqueUsers: users.get(r.persona_id) ?? 0,
    ...(success.get(r.persona_id) ?? { analyzedCalls: 0, successRate: null }),
  }));
  return { personas, ...shown };
}

interface FailureRow {
  n: string;
  /** A Date or a timestamp string, as the driver's type parsers leave it. */
  last: Date | string | null;
  message: string | null;
}

/** Count, latest time and latest message of one kind of runtime failure in a window. */
function runtimeFailures(
  knex: Knex,
  source: { table: string; at: string; where: string; message: string },
  accountId: string,
  envs: string[],
  window: TimeWindow,
) {
  const filter = `"account_id" = ? and "environment" = any(?) and ${source.where} and ${source.at} >= ? and ${source.at} < ?`;
  const bindings = [accountId, envs, new Date(window.from), new Date(window.to)];
  return knex.raw<{ rows: FailureRow[] }>(
    `select x.n, x.last, (select ${source.message} from "${source.table}" where ${filter} order by ${source.at} desc limit 1) as message
     from (select count(*) as n, max(${source.at}) as last from "${source.table}" where ${filter}) x`,
    [...bindings, ...bindings],
  );
}

const RUNTIME_SOURCES: Record<
  RuntimeFailureCode,
  { table: string; at: string; where: string; message: string }
> = {
  // a failed tool run is its tool.failed event (tools API, voice sessions)
  TOOL_FAILED: {
    table: 'events',
    at: '"created_at"',
    where: `"type" = 'tool.failed'`,
    message: `concat_ws(': ', ("payload"::jsonb -> 'data' ->> 'toolName'), ("payload"::jsonb -> 'data' ->> 'error'))`,
  },
  WORKFLOW_FAILED: {
    table: 'workflow_executions',
    at: '"completed_at"',
    where: `"status" = 'failed'`,
    message: `("error"::jsonb ->> 'message')`,
  },
  // deliveries sent by POST /webhooks/:id/test are not counted
  DELIVERY_FAILED: {
    table: 'deliveries',
    at: 'coalesce("last_attempt_at", "created_at")',
    where: `"status" = 'failed' and not "test"`,
    message: `"error"`,
  },
};

export async function analyticsErrors(
  knex: Knex,
  accountId: string,
  query: PeriodQueryInput,
  now = Date.now(),
) {
  const envs = environmentsOf(query.environment);
  const { current, shown } = windowOf(query.period, now);
  const calls = apiCallRows(accountId, envs, current, true);
  const codes = Object.keys(RUNTIME_SOURCES) as RuntimeFailureCode[];
  const [api, ...runtime] = await Promise.all([
    knex.raw<{ rows: { code: string; n: string; last: Date | string; message: string | null }[] }>(
      `select "error_code" as code, sum("calls") as n, max("last_at") as last,
         (array_agg("last_message" order by "last_at" desc))[1] as message
       from (${calls.sql}) c group by "error_code"`,
      calls.bindings,
    ),
    ...codes.map((code) => runtimeFailures(knex, RUNTIME_SOURCES[code], accountId, envs, current)),
  ]);
  const errors: (z.input<typeof ErrorEntry> & { at: number })[] = api.rows.map((r) => ({
    code: r.code,
    message: r.message ?? r.code,
    count: num(r.n),
    lastOccurred: new Date(r.last).toISOString(),
    at: new Date(r.last).getTime(),
  }));
  runtime.forEach((result, i) => {
    const row = result.rows[0];
    if (!row || num(row.n) === 0 || !row.last) return;
    errors.push({
      code: codes[i],
      message: row.message || RUNTIME_FAILURE_MESSAGES[codes[i]],
      count: num(row.n),
      lastOccurred: new Date(row.last).toISOString(),
      at: new Date(row.last).getTime(),
    });
  });
  errors.sort((a, b) => b.count - a.count || b.at - a.at || (a.code < b.code ? -1 : 1));
  return { errors: errors.map(({ at: _at, ...entry }) => entry), ...shown };
}
