import { Migration } from '@mikro-orm/migrations';

/**
 * Recordings (docs/voice-stream.md "Recordings"): a session made with `recording: true` keeps each
 * turn's caller audio and reply audio as MP3, in PostgreSQL beside the turn, until the housekeeping
 * schedule deletes them after RECORDING_RETENTION_DAYS; they go with their session.
 */
export class Migration20261126100000TurnRecordings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sessions" add column "recording" boolean not null default false;`);
    this.addSql(
      `create table "session_turn_recordings" ("session_id" varchar(40) not null, "turn_index" int not null, "side" varchar(8) not null, "mime" varchar(32) not null, "audio" bytea not null, "duration_ms" int not null, "created_at" timestamptz not null default now(), constraint "session_turn_recordings_pkey" primary key ("session_id", "turn_index", "side"));`,
    );
    this.addSql(
      `alter table "session_turn_recordings" add constraint "session_turn_recordings_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create index "session_turn_recordings_created_at_index" on "session_turn_recordings" ("created_at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "session_turn_recordings" cascade;`);
    this.addSql(`alter table "sessions" drop column "recording";`);
  }
}
