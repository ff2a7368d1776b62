import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { Page } from '../common/owned';
import type { Owner } from '../common/owner';
import type { Encryptor } from '../crypto/encryption';
import { preparedStatement } from '../db/prepared';
import { notFound, validationFailed } from '../http/errors';
import { Secret } from './secret.entity';

/** Additional data binding a ciphertext to its row and owner: moved elsewhere, it no longer decrypts. */
export const secretAad = (secret: Pick<Secret, 'id' | 'account' | 'environment' | 'name'>) =>
  `secret:${secret.id}:${secret.account}:${secret.environment}:${secret.name}`;

const view = (s: Pick<Secret, 'name' | 'createdAt' | 'updatedAt'>) => ({
  name: s.name,
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
});

/** Creates or replaces a secret; `created` tells which. */
export async function putSecret(
  em: EntityManager,
  encryptor: Encryptor,
  owner: Owner,
  name: string,
  value: string,
) {
  let secret = await em.findOne(Secret, { account: owner.accountId, environment: owner.environment, name });
  const created = !secret;
  if (!secret) {
    secret = em.create(Secret, {
      account: owner.accountId,
      environment: owner.environment,
      name,
      ciphertext: '',
    });
  } else {
    secret.updatedAt = new Date();
  }
  secret.ciphertext = encryptor.encrypt(value, secretAad(secret));
  try {
    await em.flush();
  } catch (error) {
    if (!(created && error instanceof UniqueConstraintViolationException)) throw error;
    // a concurrent first PUT of this name created it: this one replaces its value, as a PUT does
    em.clear();
    return putSecret(em, encryptor, owner, name, value);
  }
  return { created, secret: view(secret) };
}

/** The list's one query (exported for bench:api's floor, which runs the same SQL through `pg`). */
export const SECRETS_LIST_SQL = `select name, created_at, updated_at, count(*) over () as total from secrets
  where account_id = $1 and environment = $2 order by name asc limit $3 offset $4`;

/**
 * One page and the total in a single round trip (a window count; a second query only past the
 * end), as a prepared statement: this is the read bench:api measures.
 */
export function secretLister(em: EntityManager) {
  const list = preparedStatement<{
    name: string;
    created_at: Date | string;
    updated_at: Date | string;
    total: string;
  }>(em.getConnection().getKnex(), 'secrets-list', SECRETS_LIST_SQL);
  return async (owner: Owner, page: Page) => {
    const rows = await list([owner.accountId, owner.environment, page.limit, page.offset]);
    const total =
      rows.length > 0
        ? Number(rows[0].total)
        : page.offset > 0
          ? await em.fork().count(Secret, { account: owner.accountId, environment: owner.environment })
          : 0;
    return {
      data: rows.map((r) =>
        view({ name: r.name, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at) }),
      ),
      total,
    };
  };
}

export async function deleteSecret(em: EntityManager, owner: Owner, name: string) {
  const removed = await em.nativeDelete(Secret, {
    account: owner.accountId,
    environment: owner.environment,
    name,
  });
  if (removed === 0) throw notFound('Secret');
  return { deleted: true as const, name };
}

/**
 * Decrypted values for `{{secrets.NAME}}` substitution by tools and MCP servers. An unknown name is a
 * 400 naming it. Values must never be logged, returned or put in events.
 */
export async function resolveSecrets(
  em: EntityManager,
  encryptor: Encryptor,
  owner: Owner,
  names: string[],
): Promise<Map<string, string>> {
  const unique = [...new Set(names)];
  if (unique.length === 0) return new Map();
  const rows = await em.find(Secret, {
    account: owner.accountId,
    environment: owner.environment,
    name: unique,
  });
  const missing = unique.filter((n) => !rows.some((r) => r.name === n));
  if (missing.length) {
    throw validationFailed(
      missing.map((n) => `secrets.${n}: no such secret`),
      `Unknown secret: ${missing.join(', ')}`,
    );
  }
  return new Map(rows.map((r) => [r.name, encryptor.decrypt(r.ciphertext, secretAad(r))]));
}
