import { Migration } from '@mikro-orm/migrations';

/**
 * Warm transfers (docs/telephony.md "Warm transfers"): a caller who comes back to the agent comes on
 * a new media stream with a new stream token. `stream_tokens_taken` counts the tokens a call has
 * taken, so each is taken once and in order (the first: 0; each return: the next).
 */
export class Migration20261129150000WarmTransfers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "calls" add column "stream_tokens_taken" int not null default 0;`);
    this.addSql(`update "calls" set "stream_tokens_taken" = 1 where "stream_token_used_at" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "calls" drop column "stream_tokens_taken";`);
  }
}
