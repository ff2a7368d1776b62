import { Migration } from '@mikro-orm/migrations';

const TABLES = [
  ['activity_user_day_metrics', 'day'],
  ['activity_user_week_metrics', 'week'],
] as const;

/**
 * The numeric leaves of the activities in `source` (object keys only, at most 4 levels deep), per
 * account, environment, path, UTC day and user key ('' for no user), as the CTE `per_day`. The same
 * recursion as the daily metric rollup's; referenced twice below, so it is computed once.
 */
const perDaySql = (
  source: string,
) => `with recursive leaves (account_id, environment, day, user_key, path, value, depth) as (
    select a.account_id, a.environment, (a.occurred_at at time zone 'UTC')::date, coalesce(a.user_id, ''), array[e.key], e.value, 1
      from "${source}" a, jsonb_each(a.payload) e
     where jsonb_typeof(a.payload) = 'object'
    union all
    select l.account_id, l.environment, l.day, l.user_key, l.path || e.key, e.value, l.depth + 1
      from leaves l, jsonb_each(l.value) e
     where jsonb_typeof(l.value) = 'object' and l.depth < 4
  ),
  per_day as (
    select account_id, environment, path, day, user_key, count(*)::int as measured,
           sum(value::numeric) as sum, min(value::numeric) as min, max(value::numeric) as max
      from leaves where jsonb_typeof(value) = 'number'
     group by 1, 2, 3, 4, 5
  )`;

/** `per_day` rolled up by table: as is for days, summed per ISO week (Monday) for weeks. */
const perUnitSql = (unit: 'day' | 'week') =>
  unit === 'day'
    ? `select account_id, environment, path, day, user_key, measured, sum, min, max from per_day`
    : `select account_id, environment, path, date_trunc('week', day::timestamp)::date, user_key,
              sum(measured)::int, sum(sum), min(min), max(max)
         from per_day group by 1, 2, 3, 4, 5`;

/** Adds the leaves of `source` to both tables: commutative upserts, in key order. */
const addSql = (source: string) => {
  const [dayTable, weekTable] = TABLES.map(([table, unit]) => {
    const key = `"account_id", "environment", "path", "${unit}", "user_key"`;
    return `insert into "${table}" (${key}, "measured", "sum", "min", "max")
      ${perUnitSql(unit)} order by 1, 2, 3, 4, 5
      on conflict (${key}) do update set
        "measured" = "${table}"."measured" + excluded."measured",
        "sum" = "${table}"."sum" + excluded."sum",
        "min" = least("${table}"."min", excluded."min"),
        "max" = greatest("${table}"."max", excluded."max")`;
  });
  return `${perDaySql(source)}, days as (${dayTable}) ${weekTable};`;
};

/**
 * Subtracts the leaves of `source` from both tables and marks the touched rows stale (a minimum or
 * maximum cannot be subtracted).
 */
const removeSql = (source: string) => {
  const [dayTable, weekTable] = TABLES.map(
    ([
      table,
      unit,
    ]) => `update "${table}" m set "measured" = m."measured" - r."measured", "sum" = m."sum" - r."sum", "stale" = true
      from (${perUnitSql(unit)}) r ("account_id", "environment", "path", "${unit}", "user_key", "measured", "sum", "min", "max")
     where m."account_id" = r."account_id" and m."environment" = r."environment" and m."path" = r."path"
       and m."${unit}" = r."${unit}" and m."user_key" = r."user_key"`,
  );
  return `${perDaySql(source)}, days as (${dayTable}) ${weekTable};`;
};

/**
 * Metric stats by user (`groupBy=user`, or a `userId` filter, with a `metric`) without reading
 * every row of a window: per account, environment, payload path (numeric leaves under object keys,
 * up to 4 levels, as in `activity_daily_metrics`), UTC day or ISO week and user key ('' for no
 * user), the count of numeric values, their sum, min and max. The primary key leads with the path
 * and the day or week, so a window of one path is one range scan per table. Kept by statement
 * triggers in the writing transaction, which compute the leaves once per statement and feed both
 * tables from one statement: an insert adds (commutative upserts); a delete or an update subtracts
 * counts and sums and marks the rows `stale`, and stats read the rows of a window where any covered
 * row is stale (found through a partial index), so answers stay exact.
 */
export class Migration20261125000000ActivityUserMetrics extends Migration {
  override async up(): Promise<void> {
    for (const [table, unit] of TABLES) {
      this.addSql(
        `create table "${table}" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "path" text[] not null, "${unit}" date not null, "user_key" varchar(128) not null, "measured" int not null, "sum" numeric not null, "min" numeric not null, "max" numeric not null, "stale" boolean not null default false, constraint "${table}_pkey" primary key ("account_id", "environment", "path", "${unit}", "user_key"));`,
      );
      this.addSql(
        `alter table "${table}" add constraint "${table}_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
      );
      this.addSql(
        `create index "${table}_stale_index" on "${table}" ("account_id", "environment", "path", "${unit}") where "stale";`,
      );
    }
    this.addSql(
      `create function "activity_user_metrics_add"() returns trigger language plpgsql as $$ begin
        ${addSql('added')}
        return null; end $$;`,
    );
    this.addSql(
      `create function "activity_user_metrics_remove"() returns trigger language plpgsql as $$ begin
        ${removeSql('removed')}
        return null; end $$;`,
    );
    this.addSql(
      `create trigger "activities_user_metrics_insert" after insert on "activities" referencing new table as "added" for each statement execute function "activity_user_metrics_add"();`,
    );
    this.addSql(
      `create trigger "activities_user_metrics_delete" after delete on "activities" referencing old table as "removed" for each statement execute function "activity_user_metrics_remove"();`,
    );
    this.addSql(
      `create trigger "activities_user_metrics_update_remove" after update on "activities" referencing old table as "removed" for each statement execute function "activity_user_metrics_remove"();`,
    );
    this.addSql(
      `create trigger "activities_user_metrics_update_add" after update on "activities" referencing new table as "added" for each statement execute function "activity_user_metrics_add"();`,
    );
    // the activities logged before this migration
    this.addSql(addSql('activities'));
  }

  override async down(): Promise<void> {
    for (const t of ['insert', 'delete', 'update_remove', 'update_add']) {
      this.addSql(`drop trigger if exists "activities_user_metrics_${t}" on "activities";`);
    }
    this.addSql(`drop function if exists "activity_user_metrics_add"();`);
    this.addSql(`drop function if exists "activity_user_metrics_remove"();`);
    for (const [table] of TABLES) this.addSql(`drop table if exists "${table}" cascade;`);
  }
}
