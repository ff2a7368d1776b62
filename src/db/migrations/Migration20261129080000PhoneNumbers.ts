import { Migration } from '@mikro-orm/migrations';

/**
 * Phone numbers (docs/api-contract.md "Phone numbers"): a carrier's number on a persona, one per
 * account, environment and number, with the carrier account's credentials encrypted. Deleted with
 * their account; a deleted persona leaves its numbers without one (`persona_id` null). Keys that
 * hold every scope (the default) get the new `phone:` scopes too.
 */
export class Migration20261129080000PhoneNumbers extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "phone_numbers" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "number" varchar(16) not null, "provider" varchar(16) not null, "persona_id" varchar(40) null, "name" varchar(100) null, "credentials_ciphertext" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "phone_numbers_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "phone_numbers" add constraint "phone_numbers_owner_number_unique" unique ("account_id", "environment", "number");`,
    );
    this.addSql(
      `create index "phone_numbers_owner_index" on "phone_numbers" ("account_id", "environment", "created_at");`,
    );
    this.addSql(`create index "phone_numbers_persona_index" on "phone_numbers" ("persona_id");`);
    this.addSql(
      `alter table "phone_numbers" add constraint "phone_numbers_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "phone_numbers" add constraint "phone_numbers_persona_id_foreign" foreign key ("persona_id") references "personas" ("id") on update cascade on delete set null;`,
    );
    const before = ['mcp', 'tools', 'webhooks', 'workflows', 'activities', 'oauth', 'secrets', 'sessions']
      .flatMap((area) => [`${area}:read`, `${area}:write`])
      .concat('workflows:execute', 'tests:read', 'tests:run');
    this.addSql(
      `update "api_keys" set "scopes" = "scopes" || array['phone:read','phone:write']::text[] where "scopes" @> array[${before.map((s) => `'${s}'`).join(',')}]::text[] and not "scopes" @> array['phone:read']::text[];`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "phone_numbers" cascade;`);
  }
}
