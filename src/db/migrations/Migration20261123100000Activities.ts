import { Migration } from '@mikro-orm/migrations';

/**
 * Activities (the Activities API, `src/activity-log/`): custom events and metrics per account and
 * environment. Every index leads with the owner and ends with `occurred_at`, so lists (newest
 * first), stats windows and the voice-session context query are index range scans; stats without a
 * metric are answered from the indexes alone (index-only scans).
 */
export class Migration20261123100000Activities extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "activities" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "type" varchar(64) not null, "payload" jsonb not null, "user_id" varchar(128) null, "session_id" varchar(64) null, "persona_id" varchar(64) null, "occurred_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "activities_pkey" primary key ("id"));`,
    );
    // lists (newest first), stats by day
    this.addSql(
      `create index "activities_owner_occurred_index" on "activities" ("account_id", "environment", "occurred_at", "id");`,
    );
    // the type filter, stats by type
    this.addSql(
      `create index "activities_owner_type_index" on "activities" ("account_id", "environment", "type", "occurred_at");`,
    );
    // the userId filter, stats by user, and the voice-session context query (a user's newest, persona filtered)
    this.addSql(
      `create index "activities_owner_user_index" on "activities" ("account_id", "environment", "user_id", "occurred_at") include ("persona_id");`,
    );
    // the sessionId filter
    this.addSql(
      `create index "activities_owner_session_index" on "activities" ("account_id", "environment", "session_id", "occurred_at") where "session_id" is not null;`,
    );
    this.addSql(
      `alter table "activities" add constraint "activities_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );

    // Daily counts per type, kept by statement triggers in the same transaction as every insert,
    // update and delete (API or SQL), so count-only stats over long windows read days, not rows.
    this.addSql(
      `create table "activity_daily_counts" ("account_id" varchar(40) not null, "environment" varchar(8) not null, "day" date not null, "type" varchar(64) not null, "count" int not null, constraint "activity_daily_counts_pkey" primary key ("account_id", "environment", "day", "type"));`,
    );
    this.addSql(
      `alter table "activity_daily_counts" add constraint "activity_daily_counts_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create function "activity_daily_add"() returns trigger language plpgsql as $$ begin
        insert into "activity_daily_counts" ("account_id", "environment", "day", "type", "count")
          select "account_id", "environment", ("occurred_at" at time zone 'UTC')::date, "type", count(*) from "added"
          group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict ("account_id", "environment", "day", "type") do update set "count" = "activity_daily_counts"."count" + excluded."count";
        return null; end $$;`,
    );
    this.addSql(
      `create function "activity_daily_remove"() returns trigger language plpgsql as $$ begin
        update "activity_daily_counts" d set "count" = d."count" - r.n
          from (select "account_id", "environment", ("occurred_at" at time zone 'UTC')::date as "day", "type", count(*) as n
                from "removed" group by 1, 2, 3, 4) r
          where d."account_id" = r."account_id" and d."environment" = r."environment" and d."day" = r."day" and d."type" = r."type";
        return null; end $$;`,
    );
    this.addSql(
      `create trigger "activities_daily_insert" after insert on "activities" referencing new table as "added" for each statement execute function "activity_daily_add"();`,
    );
    this.addSql(
      `create trigger "activities_daily_delete" after delete on "activities" referencing old table as "removed" for each statement execute function "activity_daily_remove"();`,
    );
    // an update moves counts from the old (day, type) to the new one: remove the old rows, add the new
    this.addSql(
      `create trigger "activities_daily_update_remove" after update on "activities" referencing old table as "removed" for each statement execute function "activity_daily_remove"();`,
    );
    this.addSql(
      `create trigger "activities_daily_update_add" after update on "activities" referencing new table as "added" for each statement execute function "activity_daily_add"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "activity_daily_counts" cascade;`);
    this.addSql(`drop table if exists "activities" cascade;`);
    this.addSql(`drop function if exists "activity_daily_add"();`);
    this.addSql(`drop function if exists "activity_daily_remove"();`);
  }
}
