import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks, events (each row also its outbox entry), deliveries and their attempts. A trigger
 * notifies `vp_outbox` when events are committed, so dispatchers wake at once instead of polling.
 */
export class Migration20261121100000Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhooks" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "name" varchar(100) not null, "url" varchar(2048) not null, "events" text[] not null, "enabled" boolean not null default true, "persona_id" varchar(64) null, "secret_ciphertext" text not null, "previous_secret_ciphertext" text null, "previous_secret_expires_at" timestamptz null, "failing" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "webhooks_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "webhooks_owner_index" on "webhooks" ("account_id", "environment", "created_at");`,
    );
    this.addSql(
      `alter table "webhooks" add constraint "webhooks_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "events" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "type" varchar(64) not null, "persona_id" varchar(64) null, "payload" text not null, "created_at" timestamptz not null, "dispatched_at" timestamptz null, constraint "events_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "events_undispatched_index" on "events" ("created_at") where "dispatched_at" is null;`,
    );
    this.addSql(
      `alter table "events" add constraint "events_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create function "notify_outbox"() returns trigger language plpgsql as $$ begin perform pg_notify('vp_outbox', ''); return null; end $$;`,
    );
    this.addSql(
      `create trigger "events_notify_outbox" after insert on "events" for each statement execute function "notify_outbox"();`,
    );

    this.addSql(
      `create table "deliveries" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "webhook_id" varchar(40) not null, "event_id" varchar(40) not null, "event_type" varchar(64) not null, "status" varchar(16) not null default 'pending', "attempts" int not null default 0, "status_code" int null, "latency_ms" int null, "delivered_at" timestamptz null, "error" text null, "last_attempt_at" timestamptz null, "next_attempt_at" timestamptz null, "test" boolean not null default false, "replay_of" varchar(40) null, "workflow_started_at" timestamptz null, "created_at" timestamptz not null, constraint "deliveries_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "deliveries_webhook_index" on "deliveries" ("webhook_id", "status", "created_at");`,
    );
    this.addSql(
      `create index "deliveries_last_delivered_index" on "deliveries" ("webhook_id", "delivered_at" desc) where "delivered_at" is not null;`,
    );
    this.addSql(
      `create index "deliveries_unstarted_index" on "deliveries" ("created_at") where "workflow_started_at" is null and "status" = 'pending';`,
    );
    this.addSql(
      `alter table "deliveries" add constraint "deliveries_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "deliveries" add constraint "deliveries_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "deliveries" add constraint "deliveries_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "delivery_attempts" ("delivery_id" varchar(40) not null, "attempt" int not null, "attempted_at" timestamptz not null, "success" boolean not null, "status_code" int null, "latency_ms" int not null, "error" text null, "response_body" text null, constraint "delivery_attempts_pkey" primary key ("delivery_id", "attempt"));`,
    );
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_delivery_id_foreign" foreign key ("delivery_id") references "deliveries" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "delivery_attempts";');
    this.addSql('drop table if exists "deliveries";');
    this.addSql('drop trigger if exists "events_notify_outbox" on "events";');
    this.addSql('drop function if exists "notify_outbox"();');
    this.addSql('drop table if exists "events";');
    this.addSql('drop table if exists "webhooks";');
  }
}
