import { Migration } from '@mikro-orm/migrations';

/**
 * Persona versions (docs/personas.md "Versions"): every approval freezes the approved manifest as an
 * immutable row, the persona points at the one live keys run (`live_version`), and a session records
 * the version it runs (`persona_version`, null: the working draft of a `pk_test_` session). Personas
 * published before versions existed get version 1, their current manifest, live.
 */
export class Migration20261127100000PersonaVersions extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "persona_versions" ("persona_id" varchar(40) not null, "version" int not null, "manifest" jsonb not null, "approved_at" timestamptz not null, "review_id" varchar(160) null, constraint "persona_versions_pkey" primary key ("persona_id", "version"));`,
    );
    this.addSql(
      `alter table "persona_versions" add constraint "persona_versions_persona_id_foreign" foreign key ("persona_id") references "personas" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "personas" add column "live_version" int null;`);
    this.addSql(`alter table "sessions" add column "persona_version" int null;`);
    this.addSql(
      `insert into "persona_versions" ("persona_id", "version", "manifest", "approved_at", "review_id")
       select "id", 1, "manifest", coalesce("published_at", "updated_at"),
              case when "submissions" > 0 then 'review-' || "id" || '-' || "submissions" end
       from "personas" where "status" = 'published';`,
    );
    this.addSql(`update "personas" set "live_version" = 1 where "status" = 'published';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sessions" drop column if exists "persona_version";`);
    this.addSql(`alter table "personas" drop column if exists "live_version";`);
    this.addSql(`drop table if exists "persona_versions" cascade;`);
  }
}
