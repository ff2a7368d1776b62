import { Migration } from '@mikro-orm/migrations';

/**
 * Knowledge bases (docs/knowledge.md): bases, their sources, each source's content (the uploaded file,
 * the text, or the fetched page, as bytea, so its workflow can read it) and its chunks. A chunk is keyed
 * by (source, generation, ordinal); its `search` column is a generated tsvector (heading weighted A,
 * text B) in the base's text-search configuration, with a GIN index. Keys that hold every scope get
 * the new `knowledge:` scopes too.
 */
export class Migration20261129160000Knowledge extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "knowledge_bases" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "name" varchar(200) not null, "description" text null, "language" varchar(32) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "knowledge_bases_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "knowledge_bases_owner_index" on "knowledge_bases" ("account_id", "environment", "created_at");`,
    );
    this.addSql(
      `alter table "knowledge_bases" add constraint "knowledge_bases_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create table "knowledge_sources" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "knowledge_base_id" varchar(40) not null, "type" varchar(8) not null, "name" varchar(300) not null, "url" text null, "crawl" jsonb null, "content_type" varchar(200) null, "status" varchar(16) not null, "failure_reason" text null, "chunk_count" int not null default 0, "bytes" int not null default 0, "generation" int not null default 0, "ingest_generation" int not null default 1, "workflow_started_at" timestamptz null, "indexed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "knowledge_sources_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "knowledge_sources_base_index" on "knowledge_sources" ("knowledge_base_id", "created_at");`,
    );
    this.addSql(
      `create index "knowledge_sources_unstarted_index" on "knowledge_sources" ("created_at") where "workflow_started_at" is null;`,
    );
    this.addSql(
      `alter table "knowledge_sources" add constraint "knowledge_sources_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "knowledge_sources" add constraint "knowledge_sources_knowledge_base_id_foreign" foreign key ("knowledge_base_id") references "knowledge_bases" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create table "knowledge_source_documents" ("source_id" varchar(40) not null, "ordinal" int not null, "url" text null, "content_type" varchar(200) null, "file_name" varchar(300) null, "content" bytea not null, constraint "knowledge_source_documents_pkey" primary key ("source_id", "ordinal"), constraint "knowledge_source_documents_source_id_foreign" foreign key ("source_id") references "knowledge_sources" ("id") on update cascade on delete cascade);`,
    );
    this.addSql(
      `create table "knowledge_chunks" ("source_id" varchar(40) not null, "generation" int not null, "ordinal" int not null, "knowledge_base_id" varchar(40) not null, "language" regconfig not null, "heading" text null, "text" text not null, "token_estimate" int not null, "search" tsvector generated always as (setweight(to_tsvector("language", coalesce("heading", '')), 'A') || setweight(to_tsvector("language", "text"), 'B')) stored, constraint "knowledge_chunks_pkey" primary key ("source_id", "generation", "ordinal"), constraint "knowledge_chunks_source_id_foreign" foreign key ("source_id") references "knowledge_sources" ("id") on update cascade on delete cascade);`,
    );
    this.addSql(`create index "knowledge_chunks_search_index" on "knowledge_chunks" using gin ("search");`);
    this.addSql(`create index "knowledge_chunks_base_index" on "knowledge_chunks" ("knowledge_base_id");`);
    const before = [
      'mcp',
      'tools',
      'webhooks',
      'workflows',
      'activities',
      'oauth',
      'secrets',
      'sessions',
      'phone',
    ]
      .flatMap((area) => [`${area}:read`, `${area}:write`])
      .concat('workflows:execute', 'tests:read', 'tests:run');
    this.addSql(
      `update "api_keys" set "scopes" = "scopes" || array['knowledge:read','knowledge:write']::text[] where "scopes" @> array[${before.map((s) => `'${s}'`).join(',')}]::text[] and not "scopes" @> array['knowledge:read']::text[];`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "knowledge_chunks" cascade;`);
    this.addSql(`drop table if exists "knowledge_source_documents" cascade;`);
    this.addSql(`drop table if exists "knowledge_sources" cascade;`);
    this.addSql(`drop table if exists "knowledge_bases" cascade;`);
  }
}
