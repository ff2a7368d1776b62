import { Migration } from '@mikro-orm/migrations';

/**
 * Workflow definitions and their executions. Executions whose Temporal workflow has not reported in
 * yet are found through a partial index (the dispatcher starts the ones the API could not).
 */
export class Migration20261121300000Workflows extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "workflows" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "name" varchar(100) not null, "description" text null, "trigger" jsonb not null, "nodes" jsonb not null, "edges" jsonb not null, "version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "workflows_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "workflows_owner_index" on "workflows" ("account_id", "environment", "created_at");`,
    );
    this.addSql(
      `alter table "workflows" add constraint "workflows_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "workflow_executions" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "workflow_id" varchar(40) not null, "version" int not null, "definition" jsonb not null, "status" varchar(16) not null default 'running', "input" jsonb null, "output" jsonb null, "steps" jsonb not null default '[]', "error" jsonb null, "session_id" varchar(64) null, "current_nodes" jsonb not null default '[]', "match" jsonb null, "workflow_started_at" timestamptz null, "started_at" timestamptz not null, "completed_at" timestamptz null, "duration_ms" int null, constraint "workflow_executions_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "workflow_executions_history_index" on "workflow_executions" ("workflow_id", "started_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "workflow_executions_unstarted_index" on "workflow_executions" ("started_at") where "workflow_started_at" is null and "status" = 'running';`,
    );
    this.addSql(
      `alter table "workflow_executions" add constraint "workflow_executions_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "workflow_executions" add constraint "workflow_executions_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "workflow_executions";');
    this.addSql('drop table if exists "workflows";');
  }
}
