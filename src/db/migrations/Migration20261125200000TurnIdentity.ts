import { Migration } from '@mikro-orm/migrations';

/**
 * A turn is identified by its Workflow Update's id, not by an index the workflow assigns: the index
 * is assigned when the turn is recorded (the next free one of its session), so a workflow task that
 * is discarded and run again can never hand one caller's turn to another (docs/sessions.md
 * "Concurrent turns"). Kept model rounds are keyed by the update too. A session answers one turn at
 * a time: `session_turn_claims` holds the claim of the turn in flight, until it is answered or expires.
 * Claims are unlogged (no WAL, no flush at commit): a crash of PostgreSQL empties the table, which only
 * lets the next turn in, and a turn is identified by its update whatever the claims say.
 */
export class Migration20261125200000TurnIdentity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "session_turns" add column "update_id" varchar(64) null;`);
    this.addSql(
      `alter table "session_turns" add constraint "session_turns_session_id_update_id_unique" unique ("session_id", "update_id");`,
    );
    // rounds are kept only while a turn is in flight: none is worth carrying over
    this.addSql(`drop table if exists "session_turn_rounds" cascade;`);
    this.addSql(
      `create table "session_turn_rounds" ("session_id" varchar(40) not null, "update_id" varchar(64) not null, "round" int not null, "step" jsonb not null, "created_at" timestamptz not null default now(), constraint "session_turn_rounds_pkey" primary key ("session_id", "update_id", "round"));`,
    );
    this.addSql(
      `alter table "session_turn_rounds" add constraint "session_turn_rounds_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create unlogged table "session_turn_claims" ("session_id" varchar(40) not null, "claim_id" varchar(64) not null, "expires_at" timestamptz not null, constraint "session_turn_claims_pkey" primary key ("session_id"));`,
    );
    this.addSql(
      `alter table "session_turn_claims" add constraint "session_turn_claims_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "session_turn_claims" cascade;`);
    this.addSql(`drop table if exists "session_turn_rounds" cascade;`);
    this.addSql(
      `create table "session_turn_rounds" ("session_id" varchar(40) not null, "turn_index" int not null, "round" int not null, "step" jsonb not null, "created_at" timestamptz not null default now(), constraint "session_turn_rounds_pkey" primary key ("session_id", "turn_index", "round"));`,
    );
    this.addSql(`alter table "session_turns" drop constraint "session_turns_session_id_update_id_unique";`);
    this.addSql(`alter table "session_turns" drop column "update_id";`);
  }
}
