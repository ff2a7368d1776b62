import { Migration } from '@mikro-orm/migrations';

/**
 * Providers per account (docs/providers.md): the chat model, speech-to-text and voice services an
 * account connected, each with its key encrypted (`ciphertext`), named once per account; and what
 * each account's agents used of them (and of the platform's defaults), a row per day.
 */
export class Migration20261129130000Providers extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "providers" ("id" varchar(40) not null, "account_id" varchar(40) not null, "name" varchar(100) not null, "kind" varchar(16) not null, "api" varchar(16) not null, "preset" varchar(32) null, "base_url" varchar(2048) not null, "ciphertext" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "providers_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "providers" add constraint "providers_account_name_unique" unique ("account_id", "name");`,
    );
    this.addSql(
      `alter table "providers" add constraint "providers_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    // what the account's agents used, per day and provider (`platform`: the operator's defaults)
    this.addSql(
      `create table "provider_usage" ("account_id" varchar(40) not null, "day" date not null, "provider" varchar(40) not null, "kind" varchar(16) not null, "calls" bigint not null default 0, "input_tokens" bigint not null default 0, "output_tokens" bigint not null default 0, "characters" bigint not null default 0, "audio_ms" bigint not null default 0, constraint "provider_usage_pkey" primary key ("account_id", "day", "provider", "kind"));`,
    );
    this.addSql(
      `alter table "provider_usage" add constraint "provider_usage_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "provider_usage";`);
    this.addSql(`drop table if exists "providers";`);
  }
}
