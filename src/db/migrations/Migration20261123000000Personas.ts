import { Migration } from '@mikro-orm/migrations';

/**
 * Personas (console, account-owned) and operator reviews (one row per submission, id = the review
 * workflow's id; personas now, marketplace items later).
 */
export class Migration20261123000000Personas extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "personas" ("id" varchar(40) not null, "account_id" varchar(40) not null, "status" varchar(16) not null default 'draft', "manifest" jsonb not null, "slug" varchar(200) null, "name" varchar(500) not null, "tagline" varchar(1000) not null, "category" varchar(100) not null, "version" int not null default 1, "submissions" int not null default 0, "submitted_at" timestamptz null, "published_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "personas_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "personas_account_index" on "personas" ("account_id", "created_at");`);
    this.addSql(`create index "personas_account_slug_index" on "personas" ("account_id", "slug");`);
    this.addSql(
      `alter table "personas" add constraint "personas_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "reviews" ("id" varchar(160) not null, "kind" varchar(32) not null, "subject_id" varchar(80) not null, "account_id" varchar(80) not null, "subject_name" varchar(200) not null, "submission" int not null, "status" varchar(16) not null default 'pending', "submitted_at" timestamptz not null, "due_by" timestamptz not null, "overdue" boolean not null default false, "notes" text null, "decided_at" timestamptz null, "workflow_started_at" timestamptz null, "created_at" timestamptz not null, constraint "reviews_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "reviews_pending_index" on "reviews" ("submitted_at") where "status" = 'pending';`,
    );
    this.addSql(`create index "reviews_subject_index" on "reviews" ("kind", "subject_id", "decided_at");`);
    this.addSql(
      `create index "reviews_unstarted_index" on "reviews" ("created_at") where "workflow_started_at" is null and "status" = 'pending';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "reviews" cascade;`);
    this.addSql(`drop table if exists "personas" cascade;`);
  }
}
