import type { Request } from 'express';
import type { AppContext } from '../common/context';
import type { Environment } from '../common/owner';
import type { Plan } from '../config/env';
import { preparedStatement } from '../db/prepared';
import { forbidden, unauthorized } from '../http/errors';
import { annotateSpan } from '../telemetry/tracing';
import { bearerToken } from './bearer';
import type { KeyRow } from './key-cache';
import { API_KEY_PATTERN, hashApiKey } from './key-material';

/** The caller of a platform v2 request: an account in one environment, through one key. */
export interface PlatformAuth {
  accountId: string;
  environment: Environment;
  keyId: string;
  scopes: string[];
  plan: Plan;
  /** A call of the web console, made with the developer's ID token (src/app/console-platform-auth.ts). */
  console?: true;
}

/** A key's one read (exported for bench:api's floor, which runs the same SQL through `pg`). */
export const KEY_LOOKUP_SQL = `select k.id, k.account_id, k.environment, k.scopes, k.last_used_at, k.revoked_at, a.plan
  from api_keys k join accounts a on a.id = k.account_id where k.key_hash = $1`;

/** `lastUsedAt` is written at most this often per key, to keep the hot path read-only. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves `Authorization: Bearer pk_…`: from the process's key cache (ctx.keyCache), else with one
 * indexed read. The cache hears every change of a key or its account's plan (LISTEN/NOTIFY) and is
 * bypassed while it cannot, so a revocation is still refused on the very next request everywhere.
 */
export function platformAuthenticator(ctx: AppContext) {
  const knex = ctx.orm.em.getConnection().getKnex();
  // A named prepared statement: parsed and planned once per connection, not on every request.
  const lookup = preparedStatement<KeyRow>(knex, 'platform-auth-key-lookup', KEY_LOOKUP_SQL);
  const readKey = async (keyHash: string) => (await lookup([keyHash]))[0];
  // this process serves API keys: its cache listens from now on, and so is among the caches a
  // revoke waits for (the OpenAPI export's stand-in context has no cache)
  ctx.keyCache?.start();
  return async (req: Request): Promise<PlatformAuth> => {
    const key = bearerToken(req, 'API key');
    if (!API_KEY_PATTERN.test(key)) throw unauthorized('Malformed API key: expected pk_live_… or pk_test_…');
    const keyHash = hashApiKey(key);
    const row = await ctx.keyCache.lookup(keyHash, readKey);
    if (!row) throw unauthorized('Invalid API key');
    if (row.revoked_at) throw unauthorized('This API key has been revoked');
    if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
      // noted before the write: the requests that follow at once do not write it again
      ctx.keyCache.noteUsed(keyHash, new Date());
      await knex.raw('update api_keys set last_used_at = now() where id = ?', [row.id]);
    }
    annotateSpan({ 'voice.account_id': row.account_id, 'voice.environment': row.environment });
    return {
      accountId: row.account_id,
      environment: row.environment,
      keyId: row.id,
      scopes: row.scopes,
      plan: row.plan,
    };
  };
}

export function requireScope(auth: PlatformAuth, scope: string | undefined): void {
  if (scope && !auth.scopes.includes(scope)) {
    throw forbidden(`This API key lacks the "${scope}" scope`);
  }
}
