import { Migration } from '@mikro-orm/migrations';

/**
 * The turn engine runs in the API (docs/sessions.md "Where each part runs"): the model is asked from
 * there, so no model round is kept in the database any more (`session_turn_rounds` goes). A tool call
 * with side effects runs once, as a step of the session's workflow: `session_tool_calls` holds each
 * call the moment it starts and its outcome once it has one, so a step run again after a worker
 * crash answers the kept outcome, or says the outcome is unknown, and never calls the tool twice.
 * A turn keeps whether the caller interrupted it and what of its reply was spoken (the next turn's
 * model history carries only that).
 */
export class Migration20261126000000TurnEngine extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop table if exists "session_turn_rounds" cascade;`);
    this.addSql(
      `alter table "session_turns" add column "interrupted" boolean not null default false, add column "spoken_text" text null;`,
    );
    this.addSql(
      `create table "session_tool_calls" ("session_id" varchar(40) not null, "turn_id" varchar(64) not null, "call_id" varchar(128) not null, "outcome" jsonb null, "created_at" timestamptz not null default now(), "finished_at" timestamptz null, constraint "session_tool_calls_pkey" primary key ("session_id", "turn_id", "call_id"));`,
    );
    this.addSql(
      `alter table "session_tool_calls" add constraint "session_tool_calls_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "session_tool_calls" cascade;`);
    this.addSql(`alter table "session_turns" drop column "interrupted", drop column "spoken_text";`);
    this.addSql(
      `create table "session_turn_rounds" ("session_id" varchar(40) not null, "update_id" varchar(64) not null, "round" int not null, "step" jsonb not null, "created_at" timestamptz not null default now(), constraint "session_turn_rounds_pkey" primary key ("session_id", "update_id", "round"));`,
    );
  }
}
