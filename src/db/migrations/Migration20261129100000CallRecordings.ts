import { Migration } from '@mikro-orm/migrations';

/**
 * Call recordings (docs/telephony.md "Recordings"): a call's two-channel recording in chunks of
 * five seconds, μ-law 8 kHz, the caller's side and the agent's, written while the call goes on.
 * `calls.recorded_at` says when a call's recording began. Deleted with the call (and so with its account), and after RECORDING_RETENTION_DAYS.
 */
export class Migration20261129100000CallRecordings extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "call_recording_chunks" ("call_id" varchar(40) not null, "chunk_index" int not null, "caller" bytea not null, "agent" bytea not null, "created_at" timestamptz not null default now(), constraint "call_recording_chunks_pkey" primary key ("call_id", "chunk_index"));`,
    );
    this.addSql(
      `alter table "call_recording_chunks" add constraint "call_recording_chunks_call_id_foreign" foreign key ("call_id") references "calls" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create index "call_recording_chunks_created_index" on "call_recording_chunks" ("created_at");`,
    );
    this.addSql(`alter table "calls" add column "recorded_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "call_recording_chunks" cascade;`);
    this.addSql(`alter table "calls" drop column if exists "recorded_at";`);
  }
}
