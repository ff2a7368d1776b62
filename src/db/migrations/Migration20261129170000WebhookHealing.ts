import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks that heal themselves (docs/webhooks.md "Disabling", "Recovering missed events",
 * "Ed25519 signatures"): per webhook the first failed attempt since the last success
 * (`failing_since`), why and when it was disabled, and its signing scheme (an Ed25519 key pair, the
 * private key encrypted); recoveries (`wrc_…`), and which recovery sent a delivery.
 */
export class Migration20261129170000WebhookHealing extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "webhooks" add column "failing_since" timestamptz null, add column "disabled_at" timestamptz null, add column "disabled_reason" varchar(16) null, add column "signing_algorithm" varchar(16) not null default 'hmac-sha256', add column "signing_public_key" text null, add column "signing_key_ciphertext" text null;`,
    );
    this.addSql(`alter table "deliveries" add column "recovery_id" varchar(40) null;`);
    this.addSql(
      `create index "deliveries_recovery_index" on "deliveries" ("recovery_id", "status") where "recovery_id" is not null;`,
    );
    this.addSql(`create index "deliveries_webhook_event_index" on "deliveries" ("webhook_id", "event_id");`);
    this.addSql(
      `create index "events_owner_created_index" on "events" ("account_id", "environment", "created_at", "id");`,
    );
    this.addSql(
      `create table "webhook_recoveries" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "webhook_id" varchar(40) not null, "status" varchar(16) not null, "since" timestamptz not null, "until" timestamptz not null, "total" int not null default 0, "cursor_created_at" timestamptz null, "cursor_event_id" varchar(40) null, "error" text null, "workflow_started_at" timestamptz null, "completed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "webhook_recoveries_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_recoveries_webhook_index" on "webhook_recoveries" ("webhook_id", "created_at");`,
    );
    this.addSql(
      `create index "webhook_recoveries_unstarted_index" on "webhook_recoveries" ("created_at") where "workflow_started_at" is null;`,
    );
    this.addSql(
      `alter table "webhook_recoveries" add constraint "webhook_recoveries_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_recoveries" add constraint "webhook_recoveries_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "webhook_recoveries" cascade;');
    this.addSql('drop index if exists "events_owner_created_index";');
    this.addSql('drop index if exists "deliveries_webhook_event_index";');
    this.addSql('drop index if exists "deliveries_recovery_index";');
    this.addSql(`alter table "deliveries" drop column if exists "recovery_id";`);
    this.addSql(
      `alter table "webhooks" drop column if exists "failing_since", drop column if exists "disabled_at", drop column if exists "disabled_reason", drop column if exists "signing_algorithm", drop column if exists "signing_public_key", drop column if exists "signing_key_ciphertext";`,
    );
  }
}
