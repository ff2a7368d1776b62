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
 * - `session_days`: sessions per UTC day (of `started_at`), persona and user, with ended sessions and
 *   their summed duration; kept by statement triggers on `sessions` in the writing transaction.
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

    this.addSql(
      `create table "session_days" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "day" date not null, "persona_id" varchar(40) not null, "user_id" varchar(128) not null, "sessions" int not null, "ended" int not null, "duration_ms_sum" bigint not null, constraint "session_days_pkey" primary key ("account_id", "environment", "day", "persona_id", "user_id"));`,
    );
    // sessions at a window's edges (partial days) are read from the rows: index-only
    this.addSql(
      `create index "sessions_started_index" on "sessions" ("account_id", "environment", "started_at") include ("persona_id", "user_id", "ended_at");`,
    );
    // Each trigger turns its rows into signed deltas per key and adds them in one upsert; keys left
    // with no session are deleted.
    const upsertDeltas = (
      deltas: string,
    ) => `insert into "session_days" ("account_id", "environment", "day", "persona_id", "user_id", "sessions", "ended", "duration_ms_sum")
          select "account_id", "environment", "day", "persona_id", "user_id", sum(n), sum(e), sum(d)
          from (${deltas}) deltas group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
        on conflict ("account_id", "environment", "day", "persona_id", "user_id") do update set
          "sessions" = "session_days"."sessions" + excluded."sessions",
          "ended" = "session_days"."ended" + excluded."ended",
          "duration_ms_sum" = "session_days"."duration_ms_sum" + excluded."duration_ms_sum";`;
    const rowDelta = (table: string, sign: '' | '-') =>
      `select "account_id", "environment", ${SESSION_DAY} as "day", "persona_id", "user_id", ${sign}1 as n, ${sign}("ended_at" is not null)::int as e, ${sign}${DURATION_MS} as d from ${table}`;
    const deleteEmpty = (keys: string) => `delete from "session_days" s using (${keys}) k
          where s."sessions" = 0 and s."account_id" = k."account_id" and s."environment" = k."environment"
            and s."day" = k."day" and s."persona_id" = k."persona_id" and s."user_id" = k."user_id";`;
    const keysOf = (table: string) =>
      `select distinct "account_id", "environment", ${SESSION_DAY} as "day", "persona_id", "user_id" from ${table}`;
    // an update (a turn bumps turn_count, the end sets ended_at) moves only rows whose analytics columns changed
    const changedOld = `(select o.* from "removed" o join "added" n on n."id" = o."id"
          where (o."account_id", o."environment", o."persona_id", o."user_id", o."started_at", o."ended_at")
            is distinct from (n."account_id", n."environment", n."persona_id", n."user_id", n."started_at", n."ended_at")) old_rows`;
    const changedNew = `(select n.* from "added" n join "removed" o on o."id" = n."id"
          where (o."account_id", o."environment", o."persona_id", o."user_id", o."started_at", o."ended_at")
            is distinct from (n."account_id", n."environment", n."persona_id", n."user_id", n."started_at", n."ended_at")) new_rows`;
    this.addSql(
      `create function "session_days_add"() returns trigger language plpgsql as $$ begin
        ${upsertDeltas(rowDelta('"added"', ''))}
        return null; end $$;`,
    );
    this.addSql(
      `create function "session_days_remove"() returns trigger language plpgsql as $$ begin
        ${upsertDeltas(rowDelta('"removed"', '-'))}
        ${deleteEmpty(keysOf('"removed"'))}
        return null; end $$;`,
    );
    this.addSql(
      `create function "session_days_update"() returns trigger language plpgsql as $$ begin
        if not exists (select 1 from ${changedOld}) then return null; end if;
        ${upsertDeltas(`${rowDelta(changedOld, '-')} union all ${rowDelta(changedNew, '')}`)}
        ${deleteEmpty(keysOf(changedOld))}
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
      `insert into "session_days" ("account_id", "environment", "day", "persona_id", "user_id", "sessions", "ended", "duration_ms_sum")
        select "account_id", "environment", ${SESSION_DAY}, "persona_id", "user_id", count(*), count("ended_at"), sum(${DURATION_MS})
        from "sessions" group by 1, 2, 3, 4, 5;`,
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
    this.addSql(`drop table if exists "session_days";`);
    this.addSql(`drop table if exists "api_call_days";`);
    this.addSql(`drop table if exists "api_call_minutes";`);
  }
}
