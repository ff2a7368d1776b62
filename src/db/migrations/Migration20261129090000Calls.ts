import { Migration } from '@mikro-orm/migrations';

/**
 * Calls (docs/api-contract.md "Calls"): one row per phone call, inbound or outbound, on a number of
 * the account; its status and timeline as the carrier reported them. `placing_started_at` and
 * `carrier_call_id` make placing a call at most once; `stream_token_used_at` makes its stream token
 * good once. Sessions get a `channel` (`web` or `phone`).
 */
export class Migration20261129090000Calls extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "calls" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "phone_number_id" varchar(40) not null, "persona_id" varchar(40) not null, "session_id" varchar(40) null, "direction" varchar(8) not null, "from" varchar(16) not null, "to" varchar(16) not null, "status" varchar(16) not null, "timeline" jsonb not null default '[]', "carrier_call_id" varchar(64) null, "ended_reason" text null, "duration_s" int null, "variables" jsonb not null default '{}', "max_duration_s" int not null, "answered_at" timestamptz null, "ended_at" timestamptz null, "placing_started_at" timestamptz null, "stream_token_used_at" timestamptz null, "workflow_started_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "calls_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "calls_owner_index" on "calls" ("account_id", "environment", "created_at");`);
    this.addSql(`create index "calls_carrier_call_index" on "calls" ("phone_number_id", "carrier_call_id");`);
    this.addSql(
      `create index "calls_unfinished_index" on "calls" ("account_id", "environment") where "status" in ('queued', 'ringing', 'in-progress');`,
    );
    this.addSql(
      `alter table "calls" add constraint "calls_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "sessions" add column if not exists "channel" varchar(8) not null default 'web';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "calls" cascade;`);
    this.addSql(`alter table "sessions" drop column if exists "channel";`);
  }
}
