import { Migration } from '@mikro-orm/migrations';

/** The duration of an ended session in ms (0 while it runs), as the rollup and the edge reads compute it. */
const DURATION_MS = `coalesce(round(extract(epoch from ("ended_at" - "started_at")) * 1000), 0)::bigint`;
const SESSION_DAY = `("started_at" at time zone 'UTC')::date`;

/**
 * The session rollups' trigger functions (Migration20261124100000Analytics), copied here as they
 * stand so this migration stays what it was whatever changes later, with the one difference this
 * migration makes: `counted` filters the rows that count (`where "test_run_id" is null` going up, ''
 * going down), and an update compares `test_run_id` too, so marking a session a test run takes it out.
 */
function rollupFunctions(counted: string, compared: string[]): string[] {
  const applyDeltas = (deltas: string) => `with deltas as materialized (${deltas}),
        by_persona as (
          insert into "session_persona_days" ("account_id", "environment", "day", "persona_id", "sessions", "ended", "duration_ms_sum")
            select "account_id", "environment", "day", "persona_id", sum(n), sum(e), sum(d)
            from deltas group by 1, 2, 3, 4 order by 1, 2, 3, 4
          on conflict ("account_id", "environment", "day", "persona_id") do update set
            "sessions" = "session_persona_days"."sessions" + excluded."sessions",
            "ended" = "session_persona_days"."ended" + excluded."ended",
            "duration_ms_sum" = "session_persona_days"."duration_ms_sum" + excluded."duration_ms_sum"
        ), by_user as (
          insert into "session_user_days" ("account_id", "environment", "day", "user_id", "sessions")
            select "account_id", "environment", "day", "user_id", sum(n)
            from deltas group by 1, 2, 3, 4 order by 1, 2, 3, 4
          on conflict ("account_id", "environment", "day", "user_id") do update set
            "sessions" = "session_user_days"."sessions" + excluded."sessions"
          returning "account_id", "environment", "day", (xmax = 0) as "created", "sessions"
        ), day_users as (
          insert into "session_day_users" ("account_id", "environment", "day", "users")
            select "account_id", "environment", "day",
              sum(case when "created" and "sessions" > 0 then 1 when not "created" and "sessions" = 0 then -1 else 0 end)
            from by_user group by 1, 2, 3 order by 1, 2, 3
          on conflict ("account_id", "environment", "day") do update set
            "users" = "session_day_users"."users" + excluded."users"
        ), last_days as (
          insert into "session_users" ("account_id", "environment", "user_id", "last_day")
            select "account_id", "environment", "user_id", max("day")
            from deltas where n > 0 group by 1, 2, 3 order by 1, 2, 3
          on conflict ("account_id", "environment", "user_id") do update set
            "last_day" = greatest("session_users"."last_day", excluded."last_day")
        )
        insert into "session_days" ("account_id", "environment", "day", "persona_id", "user_id", "sessions")
          select "account_id", "environment", "day", "persona_id", "user_id", sum(n)
          from deltas group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
        on conflict ("account_id", "environment", "day", "persona_id", "user_id") do update set
          "sessions" = "session_days"."sessions" + excluded."sessions";`;
  const rowDelta = (table: string, sign: '' | '-') =>
    `select "account_id", "environment", ${SESSION_DAY} as "day", "persona_id", "user_id", ${sign}1 as n, ${sign}("ended_at" is not null)::int as e, ${sign}${DURATION_MS} as d from ${table} ${counted}`;
  const deleteEmpty = (table: string) => {
    const keys = ['account_id', 'environment', 'day', 'persona_id', 'user_id'].filter(
      (k) =>
        !(k === 'persona_id' && table === 'session_user_days') &&
        !(k === 'user_id' && table === 'session_persona_days'),
    );
    return (
      rows: string,
    ) => `delete from "${table}" s using (select distinct "account_id", "environment", ${SESSION_DAY} as "day", "persona_id", "user_id" from ${rows}) k
          where s."sessions" = 0 and ${keys.map((k) => `s."${k}" = k."${k}"`).join(' and ')};`;
  };
  const recomputeLastDays = (rows: string) => `with k as (
          select u."account_id", u."environment", u."user_id",
            (select max(d."day") from "session_user_days" d where d."account_id" = u."account_id"
              and d."environment" = u."environment" and d."user_id" = u."user_id" and d."sessions" > 0) as "last_day"
          from (select distinct "account_id", "environment", "user_id" from ${rows}) u
        ), gone as (
          delete from "session_users" s using k where k."last_day" is null and s."account_id" = k."account_id"
            and s."environment" = k."environment" and s."user_id" = k."user_id"
        )
        update "session_users" s set "last_day" = k."last_day" from k where k."last_day" is not null
          and s."account_id" = k."account_id" and s."environment" = k."environment" and s."user_id" = k."user_id";`;
  const deleteAllEmpty = (rows: string) =>
    ['session_days', 'session_user_days', 'session_persona_days']
      .map((t) => deleteEmpty(t)(rows))
      .concat(recomputeLastDays(rows))
      .join('\n        ');
  const columns = (side: 'o' | 'n') =>
    ['account_id', 'environment', 'persona_id', 'user_id', 'started_at', 'ended_at', ...compared]
      .map((c) => `${side}."${c}"`)
      .join(', ');
  const changed = (side: 'o' | 'n') => `(select ${side}.* from "removed" o join "added" n on n."id" = o."id"
          where (${columns('o')}) is distinct from (${columns('n')})) changed_rows`;
  return [
    `create or replace function "session_days_add"() returns trigger language plpgsql as $$ begin
        ${applyDeltas(rowDelta('"added"', ''))}
        return null; end $$;`,
    `create or replace function "session_days_remove"() returns trigger language plpgsql as $$ begin
        ${applyDeltas(rowDelta('"removed"', '-'))}
        ${deleteAllEmpty('"removed"')}
        return null; end $$;`,
    `create or replace function "session_days_update"() returns trigger language plpgsql as $$ begin
        if not exists (select 1 from ${changed('o')}) then return null; end if;
        ${applyDeltas(`${rowDelta(changed('o'), '-')} union all ${rowDelta(changed('n'), '')}`)}
        ${deleteAllEmpty(changed('o'))}
        return null; end $$;`,
  ];
}

const EDGE_COLUMNS = `("account_id", "environment", "started_at") include ("persona_id", "user_id", "ended_at")`;

/**
 * Agent-test sessions apart from customers' (docs/sessions.md "Test-run sessions"):
 * - `sessions.test_run_id`: the `testrun_…` run that started the session (null: any other session,
 *   console test calls included). Sessions the runs started before this migration (a `test` session
 *   whose caller is `testrun_…/…` and whose metadata names the run) are marked from their metadata.
 * - The analytics rollups count only sessions that are not test runs (marking the old ones takes
 *   them out); the rows at a window's edges are read through an index of those sessions, and test
 *   runs, read only when asked for (`includeTestRuns`), through an index of their own.
 * - `webhooks.include_test_runs`: a webhook that gets the events of test-run sessions too.
 * - Deleting a persona deletes its sessions' recordings (`personas_recordings_delete`) in the
 *   deleting statement; the sessions themselves stay in the log and the analytics.
 */
export class Migration20261129030000TestRunSessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sessions" add column "test_run_id" varchar(40) null;`);
    this.addSql(`alter table "webhooks" add column "include_test_runs" boolean not null default false;`);
    for (const sql of rollupFunctions(`where "test_run_id" is null`, ['test_run_id'])) this.addSql(sql);
    this.addSql(`drop index if exists "sessions_started_index";`);
    this.addSql(
      `create index "sessions_started_index" on "sessions" ${EDGE_COLUMNS} where "test_run_id" is null;`,
    );
    this.addSql(
      `create index "sessions_test_runs_started_index" on "sessions" ${EDGE_COLUMNS} where "test_run_id" is not null;`,
    );
    // the update trigger takes each marked session out of the rollups
    this.addSql(
      `update "sessions" set "test_run_id" = "metadata" ->> 'testRunId'
       where "environment" = 'test' and "user_id" like 'testrun\\_%/%' and "metadata" ->> 'testRunId' like 'testrun\\_%'
         and "test_run_id" is null;`,
    );
    this.addSql(
      `create function "persona_recordings_delete"() returns trigger language plpgsql as $$ begin
        delete from "session_turn_recordings" r using "sessions" s, "removed" p
          where s."id" = r."session_id" and s."account_id" = p."account_id" and s."persona_id" = p."id";
        return null; end $$;`,
    );
    this.addSql(
      `create trigger "personas_recordings_delete" after delete on "personas" referencing old table as "removed" for each statement execute function "persona_recordings_delete"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "personas_recordings_delete" on "personas";`);
    this.addSql(`drop function if exists "persona_recordings_delete"();`);
    // test-run sessions go back into the rollups (the update trigger adds them), then the old functions
    this.addSql(`update "sessions" set "test_run_id" = null where "test_run_id" is not null;`);
    for (const sql of rollupFunctions('', [])) this.addSql(sql);
    this.addSql(`drop index if exists "sessions_test_runs_started_index";`);
    this.addSql(`drop index if exists "sessions_started_index";`);
    this.addSql(`create index "sessions_started_index" on "sessions" ${EDGE_COLUMNS};`);
    this.addSql(`alter table "webhooks" drop column if exists "include_test_runs";`);
    this.addSql(`alter table "sessions" drop column if exists "test_run_id";`);
  }
}
