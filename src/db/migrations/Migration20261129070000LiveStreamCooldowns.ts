import { Migration } from '@mikro-orm/migrations';

/**
 * Live-stream cool-downs (docs/voice-stream.md "Limits"): an account whose stream was dropped for
 * abuse (flooding frames, not reading) opens no new stream until `until`; `strikes` counts the drops
 * of the last ten minutes, and each one lengthens the next cool-down. Unlogged, like the slots: a
 * database crash forgives.
 */
export class Migration20261129070000LiveStreamCooldowns extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create unlogged table "live_stream_cooldowns" ("account_id" varchar(40) not null, "strikes" int not null, "last_strike_at" timestamptz not null, "until" timestamptz not null, constraint "live_stream_cooldowns_pkey" primary key ("account_id"));`,
    );
    this.addSql(
      `alter table "live_stream_cooldowns" add constraint "live_stream_cooldowns_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "live_stream_cooldowns";`);
  }
}
