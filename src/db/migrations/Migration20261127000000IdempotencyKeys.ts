import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys (docs/api-contract.md "Idempotent requests"): one row per account, environment and
 * `Idempotency-Key`, unique, so of concurrent first requests with one key exactly one inserts it and
 * runs. The stored answer is encrypted. Rows live 24 hours; the housekeeping schedule deletes them
 * by `created_at`.
 */
export class Migration20261127000000IdempotencyKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "key" varchar(255) not null, "fingerprint" varchar(64) not null, "claim" varchar(32) not null, "state" varchar(16) not null, "status" int null, "response_ciphertext" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "idempotency_keys_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_owner_key_unique" unique ("account_id", "environment", "key");`,
    );
    this.addSql(`create index "idempotency_keys_created_at_index" on "idempotency_keys" ("created_at");`);
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }
}
