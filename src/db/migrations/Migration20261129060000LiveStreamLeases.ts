import { Migration } from '@mikro-orm/migrations';

/**
 * Live-stream slots (docs/voice-stream.md "Limits"): one row per open live stream, counted per
 * account against its plan's limit by every API instance, renewed while the stream is open and let
 * go when it closes; a row whose API process died lapses at `expires_at`. Unlogged, like the turn
 * claims: after a database crash no stream is open anyway.
 */
export class Migration20261129060000LiveStreamLeases extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create unlogged table "live_stream_leases" ("id" varchar(64) not null, "account_id" varchar(40) not null, "session_id" varchar(40) not null, "expires_at" timestamptz not null, constraint "live_stream_leases_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "live_stream_leases_account_id_index" on "live_stream_leases" ("account_id");`);
    this.addSql(
      `alter table "live_stream_leases" add constraint "live_stream_leases_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "live_stream_leases";`);
  }
}
