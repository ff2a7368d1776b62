import type { EntityManager } from '@mikro-orm/postgresql';
import { generateApiKey } from '../auth/key-material';
import { notFound } from '../http/errors';
import { ApiKey } from './api-key.entity';
import type { CreateKeyInput } from './keys.schemas';
import { ALL_SCOPES } from './scopes';

export function keyView(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    environment: key.environment,
    prefix: key.prefix,
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  };
}

export async function createKey(em: EntityManager, accountId: string, input: CreateKeyInput) {
  const { fullKey, keyHash, prefix } = generateApiKey(input.environment);
  const key = em.create(ApiKey, {
    account: accountId,
    name: input.name,
    environment: input.environment,
    keyHash,
    prefix,
    scopes: input.scopes ?? [...ALL_SCOPES],
  });
  await em.flush();
  const { lastUsedAt: _unused, ...view } = keyView(key);
  return { ...view, fullKey };
}

export async function listKeys(em: EntityManager, accountId: string) {
  const keys = await em.find(
    ApiKey,
    { account: accountId, revokedAt: null },
    { orderBy: { createdAt: 'desc' } },
  );
  return keys.map(keyView);
}

/**
 * Revokes at once: the next request with the key is refused (docs/api-contract.md "API keys": the
 * key caches hear it through a trigger; the route answers once every instance's cache dropped it). One
 * conditional update: of concurrent revokes of a key one revokes it, the others find it revoked
 * (404). Answers the key's hash too, for the route to wait on (never shown).
 */
export async function revokeKey(em: EntityManager, accountId: string, keyId: string) {
  const revokedAt = new Date();
  const rows: { key_hash: string }[] = await em
    .getConnection()
    .getKnex()('api_keys')
    .where({ id: keyId, account_id: accountId, revoked_at: null })
    .update({ revoked_at: revokedAt })
    .returning('key_hash');
  if (rows.length === 0) throw notFound('API key');
  return { id: keyId, revokedAt: revokedAt.toISOString(), keyHash: rows[0].key_hash };
}
