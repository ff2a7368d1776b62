import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProviderReference } from '../common/references';
import type { Encryptor } from '../crypto/encryption';
import type { ProviderApi, ProviderKind } from './presets';
import { Provider } from './provider.entity';
import { providerAad } from './providers.service';

/** What a call to an account's provider needs. The key must never be logged, returned or put in events. */
export interface ProviderCredentials {
  id: string;
  kind: ProviderKind;
  api: ProviderApi;
  baseUrl: string;
  apiKey: string;
}

/**
 * The account's provider `id` of `kind`, with its key decrypted; undefined when the account has no
 * such provider (deleted since, or another kind).
 */
export async function providerCredentials(
  em: EntityManager,
  encryptor: Encryptor,
  accountId: string,
  id: string,
  kind: ProviderKind,
): Promise<ProviderCredentials | undefined> {
  const found = await em.fork().findOne(Provider, { id, account: accountId, kind });
  if (!found) return undefined;
  const { api, baseUrl } = found;
  return { id, kind, api, baseUrl, apiKey: encryptor.decrypt(found.ciphertext, providerAad(found)) };
}

/** The account's providers of `kind`, oldest first, with their keys. */
export async function accountProviders(
  em: EntityManager,
  encryptor: Encryptor,
  accountId: string,
  kind: ProviderKind,
): Promise<(ProviderCredentials & { name: string })[]> {
  const found = await em
    .fork()
    .find(Provider, { account: accountId, kind }, { orderBy: { createdAt: 'asc' } });
  return found.map((p) => ({
    id: p.id,
    name: p.name,
    kind,
    api: p.api,
    baseUrl: p.baseUrl,
    apiKey: encryptor.decrypt(p.ciphertext, providerAad(p)),
  }));
}

/**
 * Provider `id` of `kind` whoever's it is, with its key and its account (a voice a persona picked
 * speaks with its account's key, and is metered there); undefined when there is none.
 */
export async function providerCredentialsById(
  em: EntityManager,
  encryptor: Encryptor,
  id: string,
  kind: ProviderKind,
): Promise<(ProviderCredentials & { accountId: string }) | undefined> {
  const found = await em.fork().findOne(Provider, { id, kind });
  if (!found) return undefined;
  const { api, baseUrl, account } = found;
  const apiKey = encryptor.decrypt(found.ciphertext, providerAad(found));
  return { id, kind, api, baseUrl, apiKey, accountId: account };
}

/**
 * The problems with a persona's provider references (`"<field>: …"` lines; none: it may be saved):
 * each must be one of the account's providers, of the kind its field needs.
 */
export async function providerReferenceProblems(
  em: EntityManager,
  accountId: string,
  refs: readonly ProviderReference[],
): Promise<string[]> {
  if (!refs.length) return [];
  const ids = [...new Set(refs.map((r) => r.id))];
  const found = await em.fork().find(Provider, { id: ids, account: accountId }, { fields: ['id', 'kind'] });
  const kinds = new Map(found.map((p) => [p.id, p.kind]));
  return refs.flatMap((ref) => {
    const kind = kinds.get(ref.id);
    if (!kind) return [`${ref.field}: no provider ${ref.id} in this account (GET /providers)`];
    return kind === ref.kind ? [] : [`${ref.field}: ${ref.id} is a ${kind} provider, not ${ref.kind}`];
  });
}
