import { Migration } from '@mikro-orm/migrations';

/**
 * The marketplace: publishers, items (with a generated full-text search vector and its GIN index),
 * submitted versions, removals, installations, metering records and per-month quota counters.
 * Foreign keys are checked at commit (deferrable): the entities map them as plain ids, so MikroORM
 * may insert a version before its item within one transaction.
 */
export class Migration20261124000000Marketplace extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "marketplace_publishers" ("id" varchar(128) not null, "name" varchar(128) not null, "verified" boolean not null default false, "verified_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "marketplace_publishers_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "marketplace_items" ("id" varchar(64) not null, "type" varchar(8) not null, "publisher_id" varchar(128) not null, "status" varchar(24) not null, "name" varchar(100) not null, "display_name" varchar(100) null, "description_short" varchar(200) not null, "description_long" text not null, "runtime_type" varchar(32) null, "manifest" jsonb not null, "version" varchar(64) not null, "approved_version" varchar(64) null, "latest_version" varchar(64) not null, "submissions" int not null default 1, "removals" int not null default 0, "active_installs" int not null default 0, "published_at" timestamptz null, "approved_at" timestamptz null, "removal_requested_at" timestamptz null, "removes_at" timestamptz null, "removed_at" timestamptz null, "status_before_removal" varchar(24) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "marketplace_items_pkey" primary key ("id"));`,
    );
    // ranked full-text search over the live version: id and names weigh most, then the short and long descriptions
    this.addSql(
      `alter table "marketplace_items" add column "search" tsvector generated always as (setweight(to_tsvector('english'::regconfig, replace("id", '-', ' ') || ' ' || "name" || ' ' || coalesce("display_name", '')), 'A') || setweight(to_tsvector('english'::regconfig, "description_short"), 'B') || setweight(to_tsvector('english'::regconfig, "description_long"), 'C')) stored;`,
    );
    this.addSql(`create index "marketplace_items_search_index" on "marketplace_items" using gin ("search");`);
    this.addSql(
      `create index "marketplace_items_popular_index" on "marketplace_items" ("type", "active_installs" desc, "id") where "status" = 'approved';`,
    );
    this.addSql(
      `create index "marketplace_items_recent_index" on "marketplace_items" ("type", "approved_at" desc, "id") where "status" = 'approved';`,
    );
    this.addSql(
      `create index "marketplace_items_name_index" on "marketplace_items" ("type", lower("name"), "id") where "status" = 'approved';`,
    );
    this.addSql(
      `create index "marketplace_items_publisher_index" on "marketplace_items" ("publisher_id", "created_at");`,
    );
    this.addSql(
      `alter table "marketplace_items" add constraint "marketplace_items_publisher_id_foreign" foreign key ("publisher_id") references "marketplace_publishers" ("id") on update cascade deferrable initially deferred;`,
    );

    this.addSql(
      `create table "marketplace_item_versions" ("item_id" varchar(64) not null, "version" varchar(64) not null, "seq" int not null, "manifest" jsonb not null, "status" varchar(16) not null default 'pending_review', "review_id" varchar(160) not null, "review_notes" jsonb not null default '[]', "checks_passed" boolean null, "checked_at" timestamptz null, "decision_notes" text null, "submitted_at" timestamptz not null, "decided_at" timestamptz null, "created_at" timestamptz not null, constraint "marketplace_item_versions_pkey" primary key ("item_id", "version"));`,
    );
    this.addSql(
      `create unique index "marketplace_item_versions_review_unique" on "marketplace_item_versions" ("review_id");`,
    );
    this.addSql(
      `alter table "marketplace_item_versions" add constraint "marketplace_item_versions_item_id_foreign" foreign key ("item_id") references "marketplace_items" ("id") on update cascade on delete cascade deferrable initially deferred;`,
    );

    this.addSql(
      `create table "marketplace_removals" ("id" varchar(100) not null, "item_id" varchar(64) not null, "publisher_id" varchar(128) not null, "seq" int not null, "status" varchar(16) not null default 'scheduled', "requested_at" timestamptz not null, "removes_at" timestamptz not null, "workflow_started_at" timestamptz null, "restored_at" timestamptz null, "completed_at" timestamptz null, "created_at" timestamptz not null, constraint "marketplace_removals_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "marketplace_removals_unstarted_index" on "marketplace_removals" ("created_at") where "workflow_started_at" is null and "status" = 'scheduled';`,
    );
    this.addSql(
      `alter table "marketplace_removals" add constraint "marketplace_removals_item_id_foreign" foreign key ("item_id") references "marketplace_items" ("id") on update cascade on delete cascade deferrable initially deferred;`,
    );

    this.addSql(
      `create table "marketplace_installations" ("id" varchar(40) not null, "user_id" varchar(128) not null, "item_id" varchar(64) not null, "item_type" varchar(8) not null, "granted_permissions" jsonb not null default '[]', "status" varchar(16) not null default 'active', "installed_at" timestamptz not null, "uninstalled_at" timestamptz null, "removed_at" timestamptz null, constraint "marketplace_installations_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create unique index "marketplace_installations_active_unique" on "marketplace_installations" ("user_id", "item_id") where "status" = 'active';`,
    );
    this.addSql(
      `create index "marketplace_installations_user_index" on "marketplace_installations" ("user_id", "installed_at");`,
    );
    this.addSql(
      `create index "marketplace_installations_item_index" on "marketplace_installations" ("item_id", "status");`,
    );
    this.addSql(
      `alter table "marketplace_installations" add constraint "marketplace_installations_item_id_foreign" foreign key ("item_id") references "marketplace_items" ("id") on update cascade on delete cascade deferrable initially deferred;`,
    );

    this.addSql(
      `create table "marketplace_quota_counters" ("user_id" varchar(128) not null, "item_id" varchar(64) not null, "period" varchar(7) not null, "used" int not null default 0, constraint "marketplace_quota_counters_pkey" primary key ("user_id", "item_id", "period"));`,
    );

    this.addSql(
      `create table "marketplace_usage" ("id" bigserial not null, "user_id" varchar(128) not null, "item_id" varchar(64) not null, "kind" varchar(16) not null default 'execution', "tier" varchar(16) not null, "period" varchar(7) not null, "started_at" timestamptz not null, "finished_at" timestamptz null, "duration_ms" int null, "success" boolean null, "error_code" varchar(40) null, "error" text null, "price_cents" int not null default 0, constraint "marketplace_usage_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "marketplace_usage_user_index" on "marketplace_usage" ("user_id", "period", "item_id");`,
    );
    this.addSql(
      `create index "marketplace_usage_item_index" on "marketplace_usage" ("item_id", "started_at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "marketplace_usage" cascade;`);
    this.addSql(`drop table if exists "marketplace_quota_counters" cascade;`);
    this.addSql(`drop table if exists "marketplace_installations" cascade;`);
    this.addSql(`drop table if exists "marketplace_removals" cascade;`);
    this.addSql(`drop table if exists "marketplace_item_versions" cascade;`);
    this.addSql(`drop table if exists "marketplace_items" cascade;`);
    this.addSql(`drop table if exists "marketplace_publishers" cascade;`);
  }
}
