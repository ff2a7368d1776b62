import { Migration } from '@mikro-orm/migrations';

/** The duration of an ended session in ms (0 while it runs), as the rollup and the edge reads compute it. */
const DURATION_MS = `coalesce(round(extract(epoch from ("ended_at" - "started_at")) * 1000), 0)::bigint`;
const SESSION_DAY = `("started_at" at time zone 'UTC')::date`;

/**
 * Console analytics (`src/analytics/`):
 * - `api_call_minutes`: platform API calls per account, environment, minute, route template, status
 *   and error code, with latency sums; upserted by each API process's recorder every second.
 * - `api_call_days`: the same calls per UTC day and error code (written in the same transaction), so
 *   long windows read days and only their edges read minutes.
 * - `session_days` (by persona and user), `session_user_days` (by user), `session_day_users` (distinct
 *   users), `session_users` (each user's latest day) and `session_persona_days` (by persona, with ended sessions and their summed duration):
 *   sessions per UTC day of `started_at`, kept by statement triggers on `sessions` in the writing
 *   transaction.
 * - partial indexes for the runtime failures of `/analytics/errors` (failed tool runs, workflow
 *   executions and webhook deliveries) and a covering index for the sessions at a window's edges.
 * The rollups carry no foreign key: a flush never fails because an account disappeared meanwhile.
 */
export class Migration20261124100000Analytics extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "api_call_minutes" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "minute" timestamptz not null, "method" varchar(8) not null, "route" varchar(200) not null, "status" smallint not null, "error_code" varchar(64) not null default '', "calls" bigint not null, "latency_ms_sum" double precision not null, "last_at" timestamptz not null, "last_message" text null, constraint "api_call_minutes_pkey" primary key ("account_id", "environment", "minute", "method", "route", "status", "error_code"));`,
    );
    this.addSql(
      `create table "api_call_days" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "day" date not null, "error_code" varchar(64) not null default '', "calls" bigint not null, "latency_ms_sum" double precision not null, "last_at" timestamptz not null, "last_message" text null, constraint "api_call_days_pkey" primary key ("account_id", "environment", "day", "error_code"));`,
    );

    // Three rollups of sessions per UTC day of `started_at`: by persona and user (distinct users per
    // persona), by user (distinct users), by persona (sessions, ended ones and their duration).
    this.addSql(
      `create table "session_days" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "day" date not null, "persona_id" varchar(40) not null, "user_id" varchar(128) not null, "sessions" int not null, constraint "session_days_pkey" primary key ("account_id", "environment", "day", "persona_id", "user_id"));`,
    );
    this.addSql(
      `create table "session_user_days" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "day" date not null, "user_id" varchar(128) not null, "sessions" int not null, constraint "session_user_days_pkey" primary key ("account_id", "environment", "day", "user_id"));`,
    );
    // each user's latest day with a session: the users of a window that ends now are those whose
    // latest day is in it (one index range, whatever the window's length)
    this.addSql(
      `create table "session_users" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "user_id" varchar(128) not null, "last_day" date not null, constraint "session_users_pkey" primary key ("account_id", "environment", "user_id"));`,
    );
    this.addSql(
      `create index "session_users_last_day_index" on "session_users" ("account_id", "environment", "last_day") include ("user_id");`,
    );
    this.addSql(
      `create index "session_user_days_user_index" on "session_user_days" ("account_id", "environment", "user_id", "day");`,
    );
    // distinct users per day, kept from session_user_days (a row created: +1, a row emptied: -1)
    this.addSql(
      `create table "session_day_users" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "day" date not null, "users" int not null, constraint "session_day_users_pkey" primary key ("account_id", "environment", "day"));`,
    );
    this.addSql(
      `create table "session_persona_days" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "day" date not null, "persona_id" varchar(40) not null, "sessions" int not null, "ended" int not null, "duration_ms_sum" bigint not null, constraint "session_persona_days_pkey" primary key ("account_id", "environment", "day", "persona_id"));`,
    );
    // sessions at a window's edges (partial days) are read from the rows: index-only
    this.addSql(
      `create index "sessions_started_index" on "sessions" ("account_id", "environment", "started_at") include ("persona_id", "user_id", "ended_at");`,
    );

    // Each trigger turns its rows into signed deltas (sessions n, ended e, duration d) and adds them to
    // the three rollups in one statement; keys left without a session are then deleted.
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
      `select "account_id", "environment", ${SESSION_DAY} as "day", "persona_id", "user_id", ${sign}1 as n, ${sign}("ended_at" is not null)::int as e, ${sign}${DURATION_MS} as d from ${table}`;
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
    // users that lost sessions: their latest day is looked up again (none left: no row)
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
    // an update (a turn bumps turn_count, the end sets ended_at) moves only rows whose analytics columns changed
    const changed = (side: 'o' | 'n') => `(select ${side}.* from "removed" o join "added" n on n."id" = o."id"
          where (o."account_id", o."environment", o."persona_id", o."user_id", o."started_at", o."ended_at")
            is distinct from (n."account_id", n."environment", n."persona_id", n."user_id", n."started_at", n."ended_at")) changed_rows`;
    this.addSql(
      `create function "session_days_add"() returns trigger language plpgsql as $$ begin
        ${applyDeltas(rowDelta('"added"', ''))}
        return null; end $$;`,
    );
    this.addSql(
      `create function "session_days_remove"() returns trigger language plpgsql as $$ begin
        ${applyDeltas(rowDelta('"removed"', '-'))}
        ${deleteAllEmpty('"removed"')}
        return null; end $$;`,
    );
    this.addSql(
      `create function "session_days_update"() returns trigger language plpgsql as $$ begin
        if not exists (select 1 from ${changed('o')}) then return null; end if;
        ${applyDeltas(`${rowDelta(changed('o'), '-')} union all ${rowDelta(changed('n'), '')}`)}
        ${deleteAllEmpty(changed('o'))}
        return null; end $$;`,
    );
    this.addSql(
      `create trigger "sessions_days_insert" after insert on "sessions" referencing new table as "added" for each statement execute function "session_days_add"();`,
    );
    this.addSql(
      `create trigger "sessions_days_delete" after delete on "sessions" referencing old table as "removed" for each statement execute function "session_days_remove"();`,
    );
    this.addSql(
      `create trigger "sessions_days_update" after update on "sessions" referencing old table as "removed" new table as "added" for each statement execute function "session_days_update"();`,
    );
    // sessions recorded before this migration
    this.addSql(
      `insert into "session_days" ("account_id", "environment", "day", "persona_id", "user_id", "sessions")
        select "account_id", "environment", ${SESSION_DAY}, "persona_id", "user_id", count(*) from "sessions" group by 1, 2, 3, 4, 5;`,
    );
    this.addSql(
      `insert into "session_user_days" ("account_id", "environment", "day", "user_id", "sessions")
        select "account_id", "environment", ${SESSION_DAY}, "user_id", count(*) from "sessions" group by 1, 2, 3, 4;`,
    );
    this.addSql(
      `insert into "session_users" ("account_id", "environment", "user_id", "last_day")
        select "account_id", "environment", "user_id", max("day") from "session_user_days" group by 1, 2, 3;`,
    );
    this.addSql(
      `insert into "session_day_users" ("account_id", "environment", "day", "users")
        select "account_id", "environment", "day", count(*) from "session_user_days" group by 1, 2, 3;`,
    );
    this.addSql(
      `insert into "session_persona_days" ("account_id", "environment", "day", "persona_id", "sessions", "ended", "duration_ms_sum")
        select "account_id", "environment", ${SESSION_DAY}, "persona_id", count(*), count("ended_at"), sum(${DURATION_MS})
        from "sessions" group by 1, 2, 3, 4;`,
    );

    // runtime failures of /analytics/errors, by owner and time
    this.addSql(
      `create index "events_tool_failed_index" on "events" ("account_id", "environment", "created_at") where "type" = 'tool.failed';`,
    );
    this.addSql(
      `create index "workflow_executions_failed_index" on "workflow_executions" ("account_id", "environment", "completed_at") where "status" = 'failed';`,
    );
    this.addSql(
      `create index "deliveries_failed_index" on "deliveries" ("account_id", "environment", (coalesce("last_attempt_at", "created_at"))) where "status" = 'failed' and not "test";`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "deliveries_failed_index";`);
    this.addSql(`drop index if exists "workflow_executions_failed_index";`);
    this.addSql(`drop index if exists "events_tool_failed_index";`);
    this.addSql(`drop trigger if exists "sessions_days_update" on "sessions";`);
    this.addSql(`drop trigger if exists "sessions_days_delete" on "sessions";`);
    this.addSql(`drop trigger if exists "sessions_days_insert" on "sessions";`);
    this.addSql(`drop function if exists "session_days_update"();`);
    this.addSql(`drop function if exists "session_days_remove"();`);
    this.addSql(`drop function if exists "session_days_add"();`);
    this.addSql(`drop index if exists "sessions_started_index";`);
    this.addSql(`drop table if exists "session_persona_days";`);
    this.addSql(`drop table if exists "session_users";`);
    this.addSql(`drop table if exists "session_day_users";`);
    this.addSql(`drop table if exists "session_user_days";`);
    this.addSql(`drop table if exists "session_days";`);
    this.addSql(`drop table if exists "api_call_days";`);
    this.addSql(`drop table if exists "api_call_minutes";`);
  }
}
