import { Migration } from '@mikro-orm/migrations';

/**
 * Workflow versions (docs/voice-workflows.md "Versions"): every saved definition, kept immutable,
 * deleted with its workflow. The foreign key is checked at commit: a workflow and its first version are
 * written by one flush, in whatever order. Existing workflows start their history at their current version.
 */
export class Migration20261126200000WorkflowVersions extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "workflow_versions" ("workflow_id" varchar(40) not null, "version" int not null, "name" varchar(100) not null, "description" text null, "trigger" jsonb not null, "nodes" jsonb not null, "edges" jsonb not null, "created_at" timestamptz not null, constraint "workflow_versions_pkey" primary key ("workflow_id", "version"));`,
    );
    this.addSql(
      `alter table "workflow_versions" add constraint "workflow_versions_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on update cascade on delete cascade deferrable initially deferred;`,
    );
    this.addSql(
      `insert into "workflow_versions" ("workflow_id", "version", "name", "description", "trigger", "nodes", "edges", "created_at") select "id", "version", "name", "description", "trigger", "nodes", "edges", "updated_at" from "workflows";`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "workflow_versions" cascade;`);
  }
}
