import { Migration } from '@mikro-orm/migrations';

/**
 * Agent tests (docs/personas.md "Testing an agent"): a persona's scenarios, its test runs (one
 * workflow each) with one result per scenario, and the tool mocks of a test session (read by the
 * session engine's tool round: docs/sessions.md "Tool calls").
 */
export class Migration20261127300000AgentTests extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "persona_test_scenarios" ("id" varchar(40) not null, "account_id" varchar(40) not null, "persona_id" varchar(40) not null, "name" varchar(200) not null, "definition" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "persona_test_scenarios_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "persona_test_scenarios_persona_index" on "persona_test_scenarios" ("persona_id", "created_at");`,
    );
    this.addSql(
      `create table "test_runs" ("id" varchar(40) not null, "account_id" varchar(40) not null, "persona_id" varchar(40) not null, "persona_version" int null, "status" varchar(16) not null default 'running', "scenarios" jsonb not null, "passed" int not null default 0, "failed" int not null default 0, "workflow_started_at" timestamptz null, "completed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "test_runs_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "test_runs_persona_index" on "test_runs" ("persona_id", "created_at");`);
    this.addSql(
      `create index "test_runs_unstarted_index" on "test_runs" ("created_at") where "workflow_started_at" is null and "status" = 'running';`,
    );
    this.addSql(
      `create table "test_run_results" ("run_id" varchar(40) not null, "scenario_id" varchar(40) not null, "session_id" varchar(40) null, "outcome" jsonb not null, "created_at" timestamptz not null, constraint "test_run_results_pkey" primary key ("run_id", "scenario_id"));`,
    );
    this.addSql(
      `create table "session_tool_mocks" ("session_id" varchar(40) not null, "mocks" jsonb not null, constraint "session_tool_mocks_pkey" primary key ("session_id"));`,
    );
    for (const [table, column, parent] of [
      ['persona_test_scenarios', 'account_id', 'accounts'],
      ['persona_test_scenarios', 'persona_id', 'personas'],
      ['test_runs', 'account_id', 'accounts'],
      ['test_runs', 'persona_id', 'personas'],
      ['test_run_results', 'run_id', 'test_runs'],
      ['session_tool_mocks', 'session_id', 'sessions'],
    ]) {
      this.addSql(
        `alter table "${table}" add constraint "${table}_${column}_foreign" foreign key ("${column}") references "${parent}" ("id") on update cascade on delete cascade;`,
      );
    }
    // keys that hold every scope (the default) get the new tests scopes too
    const before = ['mcp', 'tools', 'webhooks', 'workflows', 'activities', 'oauth', 'secrets', 'sessions']
      .flatMap((area) => [`${area}:read`, `${area}:write`])
      .concat('workflows:execute');
    this.addSql(
      `update "api_keys" set "scopes" = "scopes" || array['tests:read','tests:run']::text[] where "scopes" @> array[${before.map((s) => `'${s}'`).join(',')}]::text[] and not "scopes" @> array['tests:read']::text[];`,
    );
  }

  override async down(): Promise<void> {
    for (const table of ['session_tool_mocks', 'test_run_results', 'test_runs', 'persona_test_scenarios'])
      this.addSql(`drop table if exists "${table}" cascade;`);
  }
}
