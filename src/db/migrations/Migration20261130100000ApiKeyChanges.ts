import { Migration } from '@mikro-orm/migrations';

/**
 * Every change that can alter what an API key authorizes notifies `vp_api_key_changes`, so each API
 * instance's key cache (src/auth/key-cache.ts) drops what it holds: a key's row changing or going
 * (payload: the old row's key_hash) and an account's plan changing or the account going (payload:
 * `account:<id>`). Triggers catch every writer, the services and direct SQL alike. The hot path's
 * `last_used_at` write alone notifies nothing: the `when` clause compares every other column the
 * authenticator reads.
 */
export class Migration20261130100000ApiKeyChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create function "notify_api_key_change"() returns trigger language plpgsql as $$ begin perform pg_notify('vp_api_key_changes', old.key_hash); return null; end $$;`,
    );
    this.addSql(
      `create trigger "api_keys_notify_update" after update on "api_keys" for each row when ((old.id, old.key_hash, old.account_id, old.environment, old.scopes, old.revoked_at) is distinct from (new.id, new.key_hash, new.account_id, new.environment, new.scopes, new.revoked_at)) execute function "notify_api_key_change"();`,
    );
    this.addSql(
      `create trigger "api_keys_notify_delete" after delete on "api_keys" for each row execute function "notify_api_key_change"();`,
    );
    this.addSql(
      `create function "notify_account_key_change"() returns trigger language plpgsql as $$ begin perform pg_notify('vp_api_key_changes', 'account:' || old.id); return null; end $$;`,
    );
    this.addSql(
      `create trigger "accounts_notify_plan_update" after update of "plan" on "accounts" for each row when (old.plan is distinct from new.plan) execute function "notify_account_key_change"();`,
    );
    this.addSql(
      `create trigger "accounts_notify_delete" after delete on "accounts" for each row execute function "notify_account_key_change"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists "accounts_notify_delete" on "accounts";');
    this.addSql('drop trigger if exists "accounts_notify_plan_update" on "accounts";');
    this.addSql('drop function if exists "notify_account_key_change"();');
    this.addSql('drop trigger if exists "api_keys_notify_delete" on "api_keys";');
    this.addSql('drop trigger if exists "api_keys_notify_update" on "api_keys";');
    this.addSql('drop function if exists "notify_api_key_change"();');
  }
}
