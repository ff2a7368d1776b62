import type { Request } from 'express';
import type { AppContext } from '../common/context';
import type { Environment } from '../common/owner';
import type { Plan } from '../config/env';
import { preparedStatement } from '../db/prepared';
import { forbidden, unauthorized } from '../http/errors';
import { annotateSpan } from '../telemetry/tracing';
import { bearerToken } from './bearer';
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

interface KeyRow {
  id: string;
  account_id: string;
  environment: Environment;
  scopes: string[];
  last_used_at: string | null;
  revoked_at: string | null;
  plan: Plan;
}

/** A key's one read (exported for bench:api's floor, which runs the same SQL through `pg`). */
export const KEY_LOOKUP_SQL = `select k.id, k.account_id, k.environment, k.scopes, k.last_used_at, k.revoked_at, a.plan
  from api_keys k join accounts a on a.id = k.account_id where k.key_hash = $1`;

/** `lastUsedAt` is written at most this often per key, to keep the hot path read-only. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves `Authorization: Bearer pk_…` with one indexed read (no cache, so a revocation is seen by
 * every API instance on the very next request).
 */
export function platformAuthenticator(ctx: AppContext) {
  const knex = ctx.orm.em.getConnection().getKnex();
  // A named prepared statement: parsed and planned once per connection, not on every request.
  const lookup = preparedStatement<KeyRow>(knex, 'platform-auth-key-lookup', KEY_LOOKUP_SQL);
  const lookupKey = async (keyHash: string) => (await lookup([keyHash]))[0];
  return async (req: Request): Promise<PlatformAuth> => {
    const key = bearerToken(req, 'API key');
    if (!API_KEY_PATTERN.test(key)) throw unauthorized('Malformed API key: expected pk_live_… or pk_test_…');
    const row = await lookupKey(hashApiKey(key));
    if (!row) throw unauthorized('Invalid API key');
    if (row.revoked_at) throw unauthorized('This API key has been revoked');
    if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
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
