import { Migration } from '@mikro-orm/migrations';

/**
 * Post-call analyses (docs/sessions.md "Post-call analysis"): one row per ended session whose persona
 * has an `analysis` setting, its id derived from the session id (a re-run of the dispatcher inserts
 * nothing twice), the setting copied in when the row is written, and the result once the analysis
 * workflow records it. Indexed for the per-persona success rate of the analytics.
 */
export class Migration20261127200000CallAnalysis extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "session_analyses" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "session_id" varchar(40) not null, "persona_id" varchar(40) not null, "setting" jsonb not null, "status" varchar(16) not null, "summary" text null, "success_passed" boolean null, "success_reason" text null, "data" jsonb null, "error" text null, "attempts" int not null default 0, "workflow_started_at" timestamptz null, "created_at" timestamptz not null, "completed_at" timestamptz null, constraint "session_analyses_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "session_analyses" add constraint "session_analyses_session_id_unique" unique ("session_id");`,
    );
    this.addSql(
      `create index "session_analyses_unstarted_index" on "session_analyses" ("created_at") where "workflow_started_at" is null and "status" = 'pending';`,
    );
    this.addSql(
      `create index "session_analyses_persona_index" on "session_analyses" ("account_id", "persona_id", "completed_at") where "success_passed" is not null;`,
    );
    this.addSql(
      `alter table "session_analyses" add constraint "session_analyses_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "session_analyses" add constraint "session_analyses_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "session_analyses" cascade;`);
  }
}
