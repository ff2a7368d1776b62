import { Migration } from '@mikro-orm/migrations';

/**
 * A turn's model rounds that called tools, kept while the turn is in flight: a turn's step retried
 * after a crash resumes from its last round instead of asking the model again. Removed when the turn
 * is recorded.
 */
export class Migration20261125100000SessionTurnRounds extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "session_turn_rounds" ("session_id" varchar(40) not null, "turn_index" int not null, "round" int not null, "step" jsonb not null, "created_at" timestamptz not null default now(), constraint "session_turn_rounds_pkey" primary key ("session_id", "turn_index", "round"));`,
    );
    this.addSql(
      `alter table "session_turn_rounds" add constraint "session_turn_rounds_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "session_turn_rounds" cascade;`);
  }
}
