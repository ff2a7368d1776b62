import { Migration } from '@mikro-orm/migrations';

/** The numeric leaves of the activities in `source` (object keys only, at most 4 levels deep), per day and type. */
const leavesSql = (
  source: string,
) => `with recursive leaves (account_id, environment, day, type, path, value, depth) as (
    select a.account_id, a.environment, (a.occurred_at at time zone 'UTC')::date, a.type, array[e.key], e.value, 1
      from ${source} a, jsonb_each(a.payload) e
     where jsonb_typeof(a.payload) = 'object'
    union all
    select l.account_id, l.environment, l.day, l.type, l.path || e.key, e.value, l.depth + 1
      from leaves l, jsonb_each(l.value) e
     where jsonb_typeof(l.value) = 'object' and l.depth < 4
  )
  select account_id, environment, day, type, path, count(*)::int, sum(value::numeric), min(value::numeric), max(value::numeric)
    from leaves where jsonb_typeof(value) = 'number'
   group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`;

/**
 * Stats with a `metric` over whole days from a rollup instead of the rows: per account, environment,
 * UTC day, type and payload path (numeric leaves under object keys, up to 4 levels), the count of
 * numeric values, their sum, min and max. Kept by statement triggers in the writing transaction:
 * an insert adds (commutative upserts, safe under concurrency); a delete or an update subtracts the
 * old rows' counts and sums and marks the (day, type, path) `stale`, because a min or max cannot be
 * subtracted. Stats read a window's whole days from here only when none of them is stale (else the
 * rows), so answers stay exact. Deeper paths and paths through arrays are always read from the rows.
 */
export class Migration20261124200000ActivityMetrics extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "activity_daily_metrics" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "day" date not null, "type" varchar(64) not null, "path" text[] not null, "measured" int not null, "sum" numeric not null, "min" numeric null, "max" numeric null, "stale" boolean not null default false, constraint "activity_daily_metrics_pkey" primary key ("account_id", "environment", "day", "type", "path"));`,
    );
    this.addSql(
      `alter table "activity_daily_metrics" add constraint "activity_daily_metrics_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create index "activity_daily_metrics_path_index" on "activity_daily_metrics" ("account_id", "environment", "path", "day") include ("type", "measured", "sum", "min", "max", "stale");`,
    );
    this.addSql(
      `create function "activity_metrics_add"() returns trigger language plpgsql as $$ begin
        insert into "activity_daily_metrics" ("account_id", "environment", "day", "type", "path", "measured", "sum", "min", "max")
        ${leavesSql('"added"')}
        on conflict ("account_id", "environment", "day", "type", "path") do update set
          "measured" = "activity_daily_metrics"."measured" + excluded."measured",
          "sum" = "activity_daily_metrics"."sum" + excluded."sum",
          "min" = least("activity_daily_metrics"."min", excluded."min"),
          "max" = greatest("activity_daily_metrics"."max", excluded."max");
        return null; end $$;`,
    );
    this.addSql(
      `create function "activity_metrics_remove"() returns trigger language plpgsql as $$ begin
        update "activity_daily_metrics" m set "measured" = m."measured" - r."measured", "sum" = m."sum" - r."sum", "stale" = true
          from (${leavesSql('"removed"')}) r ("account_id", "environment", "day", "type", "path", "measured", "sum", "min", "max")
         where m."account_id" = r."account_id" and m."environment" = r."environment" and m."day" = r."day"
           and m."type" = r."type" and m."path" = r."path";
        return null; end $$;`,
    );
    this.addSql(
      `create trigger "activities_metrics_insert" after insert on "activities" referencing new table as "added" for each statement execute function "activity_metrics_add"();`,
    );
    this.addSql(
      `create trigger "activities_metrics_delete" after delete on "activities" referencing old table as "removed" for each statement execute function "activity_metrics_remove"();`,
    );
    this.addSql(
      `create trigger "activities_metrics_update_remove" after update on "activities" referencing old table as "removed" for each statement execute function "activity_metrics_remove"();`,
    );
    this.addSql(
      `create trigger "activities_metrics_update_add" after update on "activities" referencing new table as "added" for each statement execute function "activity_metrics_add"();`,
    );
    // the activities logged before this migration
    this.addSql(
      `insert into "activity_daily_metrics" ("account_id", "environment", "day", "type", "path", "measured", "sum", "min", "max") ${leavesSql('"activities"')};`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "activities_metrics_insert" on "activities";`);
    this.addSql(`drop trigger if exists "activities_metrics_delete" on "activities";`);
    this.addSql(`drop trigger if exists "activities_metrics_update_remove" on "activities";`);
    this.addSql(`drop trigger if exists "activities_metrics_update_add" on "activities";`);
    this.addSql(`drop function if exists "activity_metrics_add"();`);
    this.addSql(`drop function if exists "activity_metrics_remove"();`);
    this.addSql(`drop table if exists "activity_daily_metrics" cascade;`);
  }
}
