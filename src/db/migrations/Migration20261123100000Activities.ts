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
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "activities" cascade;`);
  }
}
