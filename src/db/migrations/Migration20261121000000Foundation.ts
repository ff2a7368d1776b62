import { Migration } from '@mikro-orm/migrations';

/** Accounts, API keys, secrets, and the shared rate-limit counters (rate-limiter-flexible's table). */
export class Migration20261121000000Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "accounts" ("id" varchar(40) not null, "issuer" varchar(255) not null, "subject" varchar(255) not null, "email" varchar(320) null, "plan" varchar(20) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "accounts_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "accounts" add constraint "accounts_issuer_subject_unique" unique ("issuer", "subject");`,
    );

    this.addSql(
      `create table "api_keys" ("id" varchar(40) not null, "account_id" varchar(40) not null, "name" varchar(100) not null, "environment" varchar(8) not null, "key_hash" varchar(64) not null, "prefix" varchar(20) not null, "scopes" text[] not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, constraint "api_keys_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(`create index "api_keys_account_index" on "api_keys" ("account_id");`);
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "secrets" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "name" varchar(64) not null, "ciphertext" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "secrets_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "secrets" add constraint "secrets_owner_name_unique" unique ("account_id", "environment", "name");`,
    );
    this.addSql(
      `alter table "secrets" add constraint "secrets_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "rate_limits" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "rate_limits";');
    this.addSql('drop table if exists "secrets";');
    this.addSql('drop table if exists "api_keys";');
    this.addSql('drop table if exists "accounts";');
  }
}
