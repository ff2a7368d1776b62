import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from '../common/context';
import type { Page } from '../common/owned';
import { deleteOwned, findOwned, listOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import { OAuthProvider } from './oauth.entity';
import type { CreateProviderInput, UpdateProviderInput } from './oauth.schemas';
import { checkUrls, secretAad } from './oauth-client';

export function providerView(p: OAuthProvider) {
  return {
    id: p.id,
    name: p.name,
    authorizationUrl: p.authorizationUrl,
    tokenUrl: p.tokenUrl,
    revocationUrl: p.revocationUrl ?? null,
    clientId: p.clientId,
    scopes: p.scopes,
    authorizeParams: p.authorizeParams ?? {},
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export const findProvider = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, OAuthProvider, owner, id, 'OAuth provider');

export async function createProvider(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  input: CreateProviderInput,
) {
  checkUrls(ctx, {
    authorizationUrl: input.authorizationUrl,
    tokenUrl: input.tokenUrl,
    revocationUrl: input.revocationUrl,
  });
  const provider = em.create(OAuthProvider, {
    account: owner.accountId,
    environment: owner.environment,
    name: input.name,
    authorizationUrl: input.authorizationUrl,
    tokenUrl: input.tokenUrl,
    revocationUrl: input.revocationUrl ?? null,
    clientId: input.clientId,
    clientSecretCiphertext: '',
    scopes: input.scopes ?? [],
    authorizeParams: input.authorizeParams ?? null,
  });
  provider.clientSecretCiphertext = ctx.encryptor.encrypt(input.clientSecret, secretAad(provider));
  await em.flush();
  return providerView(provider);
}

export async function listProviders(em: EntityManager, owner: Owner, page: Page) {
  const { items, total } = await listOwned(em, OAuthProvider, owner, page);
  return { data: items.map(providerView), total };
}

export async function getProvider(em: EntityManager, owner: Owner, id: string) {
  return providerView(await findProvider(em, owner, id));
}

export async function updateProvider(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  changes: UpdateProviderInput,
) {
  checkUrls(ctx, {
    authorizationUrl: changes.authorizationUrl,
    tokenUrl: changes.tokenUrl,
    revocationUrl: changes.revocationUrl,
  });
  const provider = await findProvider(em, owner, id);
  const { clientSecret, ...rest } = changes;
  em.assign(provider, rest);
  if (clientSecret !== undefined)
    provider.clientSecretCiphertext = ctx.encryptor.encrypt(clientSecret, secretAad(provider));
  provider.updatedAt = new Date();
  await em.flush();
  return providerView(provider);
}

export async function deleteProvider(em: EntityManager, owner: Owner, id: string) {
  await deleteOwned(em, OAuthProvider, owner, id, 'OAuth provider');
  return { deleted: true as const, id };
}
