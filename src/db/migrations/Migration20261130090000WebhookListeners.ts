import { Migration } from '@mikro-orm/migrations';

/**
 * `vp listen` (docs/webhooks.md "Listening from a terminal"): a webhook is an `endpoint` (a URL) or
 * the account's `listener` (at most one per account and environment), whose deliveries go down the
 * WebSocket of the CLI connected to it: the API process holding that socket serves the task queue
 * named in `listener_task_queue`, and `listener_connection_id` names the connection.
 */
export class Migration20261130090000WebhookListeners extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "webhooks" add column "kind" varchar(16) not null default 'endpoint', add column "listener_task_queue" varchar(200) null, add column "listener_connection_id" varchar(40) null;`,
    );
    this.addSql(
      `create unique index "webhooks_listener_unique" on "webhooks" ("account_id", "environment") where "kind" = 'listener';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists "webhooks_listener_unique";');
    this.addSql(
      `alter table "webhooks" drop column if exists "kind", drop column if exists "listener_task_queue", drop column if exists "listener_connection_id";`,
    );
  }
}
