import { Migration } from '@mikro-orm/migrations';

/** Voice sessions and their turns (the transcript). */
export class Migration20261123200000Sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "sessions" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "persona_id" varchar(40) not null, "user_id" varchar(128) not null, "status" varchar(16) not null default 'active', "metadata" jsonb not null default '{}', "greeting" text not null, "started_at" timestamptz not null, "ended_at" timestamptz null, "end_reason" varchar(16) null, "turn_count" int not null default 0, "workflow_started_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "sessions_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "sessions_owner_index" on "sessions" ("account_id", "environment", "created_at");`,
    );
    this.addSql(
      `create index "sessions_unstarted_index" on "sessions" ("created_at") where "workflow_started_at" is null and "status" = 'active';`,
    );
    this.addSql(
      `alter table "sessions" add constraint "sessions_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create table "session_turns" ("session_id" varchar(40) not null, "index" int not null, "text" text not null, "reply" text not null, "route" varchar(16) not null, "actions" jsonb not null, "error" text null, "latency_ms" int not null, "created_at" timestamptz not null, constraint "session_turns_pkey" primary key ("session_id", "index"));`,
    );
    this.addSql(
      `alter table "session_turns" add constraint "session_turns_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
    // keys that hold every scope (the default) get the new sessions scopes too
    const before = ['mcp', 'tools', 'webhooks', 'workflows', 'activities', 'oauth', 'secrets']
      .flatMap((area) => [`${area}:read`, `${area}:write`])
      .concat('workflows:execute');
    this.addSql(
      `update "api_keys" set "scopes" = "scopes" || array['sessions:read','sessions:write']::text[] where "scopes" @> array[${before.map((s) => `'${s}'`).join(',')}]::text[] and not "scopes" @> array['sessions:read']::text[];`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "session_turns" cascade;`);
    this.addSql(`drop table if exists "sessions" cascade;`);
  }
}
