import { Migration } from '@mikro-orm/migrations';

/** MCP servers, custom tools, OAuth providers, pending authorizations and tokens. */
export class Migration20261121200000ToolsOAuth extends Migration {
  override async up(): Promise<void> {
    const owned = (table: string) => [
      `create index "${table}_owner_index" on "${table}" ("account_id", "environment", "created_at");`,
      `alter table "${table}" add constraint "${table}_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    ];
    this.addSql(
      `create table "oauth_providers" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "name" varchar(100) not null, "authorization_url" varchar(2048) not null, "token_url" varchar(2048) not null, "revocation_url" varchar(2048) null, "client_id" varchar(512) not null, "client_secret_ciphertext" text not null, "scopes" text[] not null, "authorize_params" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "oauth_providers_pkey" primary key ("id"));`,
    );
    for (const sql of owned('oauth_providers')) this.addSql(sql);

    this.addSql(
      `create table "oauth_authorizations" ("state" varchar(64) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "provider_id" varchar(40) not null, "code_verifier_ciphertext" text not null, "redirect_uri" varchar(2048) not null, "scopes" text[] not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, constraint "oauth_authorizations_pkey" primary key ("state"));`,
    );
    for (const sql of owned('oauth_authorizations')) this.addSql(sql);
    this.addSql(
      `alter table "oauth_authorizations" add constraint "oauth_authorizations_provider_id_foreign" foreign key ("provider_id") references "oauth_providers" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "oauth_tokens" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "provider_id" varchar(40) not null, "access_token_ciphertext" text not null, "refresh_token_ciphertext" text null, "token_type" varchar(40) not null, "scopes" text[] not null, "expires_at" timestamptz null, "status" varchar(16) not null default 'active', "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "oauth_tokens_pkey" primary key ("id"));`,
    );
    for (const sql of owned('oauth_tokens')) this.addSql(sql);
    this.addSql(
      `alter table "oauth_tokens" add constraint "oauth_tokens_provider_id_foreign" foreign key ("provider_id") references "oauth_providers" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "mcp_servers" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "name" varchar(100) not null, "description" text null, "transport" varchar(8) not null, "endpoint" varchar(2048) not null, "auto_connect" boolean not null, "headers_ciphertext" text null, "oauth_token_id" varchar(40) null, "status" varchar(16) not null default 'unknown', "last_connected_at" timestamptz null, "last_error" text null, "tool_count" int not null default 0, "tools" jsonb null, "tools_fetched_at" timestamptz null, "server_info" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "mcp_servers_pkey" primary key ("id"));`,
    );
    for (const sql of owned('mcp_servers')) this.addSql(sql);
    this.addSql(
      `alter table "mcp_servers" add constraint "mcp_servers_oauth_token_id_foreign" foreign key ("oauth_token_id") references "oauth_tokens" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `create table "tools" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "name" varchar(100) not null, "description" text null, "type" varchar(16) not null, "config" jsonb not null, "parameters" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "tools_pkey" primary key ("id"));`,
    );
    for (const sql of owned('tools')) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "tools";');
    this.addSql('drop table if exists "mcp_servers";');
    this.addSql('drop table if exists "oauth_tokens";');
    this.addSql('drop table if exists "oauth_authorizations";');
    this.addSql('drop table if exists "oauth_providers";');
  }
}
