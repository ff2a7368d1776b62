import { Migration } from '@mikro-orm/migrations';

const WEEK = `date_trunc('week', "occurred_at" at time zone 'UTC')::date`;
const DAY = `("occurred_at" at time zone 'UTC')::date`;

/**
 * Counts per user for stats by user (`groupBy=user`, or a `userId` filter) without scanning every
 * row of a window: per account, environment and user, the activities of each UTC day
 * (`activity_user_days`) and of each ISO week, Monday to Sunday (`activity_user_weeks`). A user
 * with about as many active days as activities gains little from days alone; whole weeks make a
 * 30-day window about four rows per user. Kept by statement triggers in the writing transaction,
 * like `activity_daily_counts` (additions and subtractions only, so concurrent writers commute).
 * Activities without a user count under the user key '' (the stats' `null` group).
 */
export class Migration20261124300000ActivityUserCounts extends Migration {
  override async up(): Promise<void> {
    for (const [table, unit] of [
      ['activity_user_days', 'day'],
      ['activity_user_weeks', 'week'],
    ] as const) {
      this.addSql(
        `create table "${table}" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "${unit}" date not null, "user_key" varchar(128) not null, "count" int not null, constraint "${table}_pkey" primary key ("account_id", "environment", "${unit}", "user_key"));`,
      );
      this.addSql(
        `alter table "${table}" add constraint "${table}_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
      );
    }
    const change = (source: string, sign: '+' | '-') =>
      [
        ['activity_user_days', 'day', DAY],
        ['activity_user_weeks', 'week', WEEK],
      ]
        .map(
          ([table, unit, expr]) =>
            `insert into "${table}" ("account_id", "environment", "${unit}", "user_key", "count")
               select "account_id", "environment", ${expr}, coalesce("user_id", ''), ${sign}count(*)::int from "${source}"
               group by 1, 2, 3, 4 order by 1, 2, 3, 4
             on conflict ("account_id", "environment", "${unit}", "user_key") do update set "count" = "${table}"."count" + excluded."count";`,
        )
        .join('\n');
    this.addSql(
      `create function "activity_users_add"() returns trigger language plpgsql as $$ begin
        ${change('added', '+')}
        return null; end $$;`,
    );
    this.addSql(
      `create function "activity_users_remove"() returns trigger language plpgsql as $$ begin
        ${change('removed', '-')}
        return null; end $$;`,
    );
    this.addSql(
      `create trigger "activities_users_insert" after insert on "activities" referencing new table as "added" for each statement execute function "activity_users_add"();`,
    );
    this.addSql(
      `create trigger "activities_users_delete" after delete on "activities" referencing old table as "removed" for each statement execute function "activity_users_remove"();`,
    );
    this.addSql(
      `create trigger "activities_users_update_remove" after update on "activities" referencing old table as "removed" for each statement execute function "activity_users_remove"();`,
    );
    this.addSql(
      `create trigger "activities_users_update_add" after update on "activities" referencing new table as "added" for each statement execute function "activity_users_add"();`,
    );
    // the activities logged before this migration
    this.addSql(change('activities', '+'));
  }

  override async down(): Promise<void> {
    for (const t of ['insert', 'delete', 'update_remove', 'update_add']) {
      this.addSql(`drop trigger if exists "activities_users_${t}" on "activities";`);
    }
    this.addSql(`drop function if exists "activity_users_add"();`);
    this.addSql(`drop function if exists "activity_users_remove"();`);
    this.addSql(`drop table if exists "activity_user_days" cascade;`);
    this.addSql(`drop table if exists "activity_user_weeks" cascade;`);
  }
}
