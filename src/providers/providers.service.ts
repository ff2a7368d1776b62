import { type EntityManager, LockMode, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { AppContext } from '../common/context';
import type { Page } from '../common/owned';
import { conflict, notFound, validationFailed } from '../http/errors';
import { urlProblems } from '../outbound/http';
import { PROVIDER_PRESETS, type ProviderApi, type ProviderKind } from './presets';
import { Provider } from './provider.entity';
import type { CreateProviderInput, UpdateProviderInput } from './providers.schemas';

/** Additional data binding a key's ciphertext to its provider and account: moved elsewhere, it no longer decrypts. */
export const providerAad = (p: Pick<Provider, 'id' | 'account'>) => `provider:${p.id}:${p.account}`;

export const providerView = (p: Provider) => ({
  id: p.id,
  name: p.name,
  kind: p.kind,
  api: p.api,
  preset: p.preset,
  baseUrl: p.baseUrl,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

/** Where the provider is and the API it speaks, from a preset or a base URL: the problems, if any. */
function endpointOf(
  ctx: AppContext,
  input: CreateProviderInput,
): { baseUrl: string; api: ProviderApi; preset: string | null } {
  const problems: string[] = [];
  if (input.preset && input.baseUrl) problems.push('baseUrl: give a preset or a base URL, not both');
  if (!input.preset && !input.baseUrl) problems.push('baseUrl: required without a preset');
  const preset = input.preset ? PROVIDER_PRESETS[input.preset] : undefined;
  if (preset && !(preset.kinds as readonly string[]).includes(input.kind))
    problems.push(`preset: ${input.preset} serves ${preset.kinds.join(', ')}, not ${input.kind}`);
  if (preset && input.api && input.api !== preset.api)
    problems.push(`api: ${input.preset} speaks ${preset.api}`);
  const api = preset?.api ?? input.api ?? 'openai';
  if (api === 'elevenlabs' && input.kind !== 'voice') problems.push('api: elevenlabs serves voices only');
  if (input.baseUrl) problems.push(...urlProblems(ctx.config.outbound, { baseUrl: input.baseUrl }));
  if (problems.length) throw validationFailed(problems);
  return { baseUrl: (preset?.baseUrl ?? input.baseUrl) as string, api, preset: input.preset ?? null };
}

async function flushNamed(em: EntityManager, name: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw conflict(`A provider named "${name}" exists`, ['name: already used by another provider']);
    throw error;
  }
}

export async function createProvider(
  ctx: AppContext,
  em: EntityManager,
  accountId: string,
  input: CreateProviderInput,
) {
  const endpoint = endpointOf(ctx, input);
  const provider = em.create(Provider, {
    account: accountId,
    name: input.name,
    kind: input.kind,
    ...endpoint,
    ciphertext: '',
  });
  provider.ciphertext = ctx.encryptor.encrypt(input.apiKey, providerAad(provider));
  await flushNamed(em, input.name);
  return providerView(provider);
}

export async function findProvider(em: EntityManager, accountId: string, id: string): Promise<Provider> {
  const found = await em.findOne(Provider, { id, account: accountId });
  if (!found) throw notFound('Provider');
  return found;
}

export async function listProviders(
  em: EntityManager,
  accountId: string,
  query: Page & { kind?: ProviderKind },
) {
  const where = { account: accountId, ...(query.kind ? { kind: query.kind } : {}) };
  const [rows, total] = await em.findAndCount(Provider, where, {
    orderBy: { createdAt: 'asc', id: 'asc' },
    limit: query.limit,
    offset: query.offset,
  });
  return { data: rows.map(providerView), total };
}

export async function updateProvider(
  ctx: AppContext,
  em: EntityManager,
  accountId: string,
  id: string,
  input: UpdateProviderInput,
) {
  const provider = await findProvider(em, accountId, id);
  if (input.baseUrl) {
    const problems = urlProblems(ctx.config.outbound, { baseUrl: input.baseUrl });
    if (problems.length) throw validationFailed(problems);
    provider.baseUrl = input.baseUrl;
    provider.preset = null;
  }
  if (input.name) provider.name = input.name;
  if (input.apiKey) provider.ciphertext = ctx.encryptor.encrypt(input.apiKey, providerAad(provider));
  provider.updatedAt = new Date();
  await flushNamed(em, provider.name);
  return providerView(provider);
}

/**
 * Deletes a provider no persona names (409 naming the personas otherwise). The row is locked first,
 * so of concurrent deletes one deletes it and the others find nothing (404).
 */
export async function deleteProvider(ctx: AppContext, em: EntityManager, accountId: string, id: string) {
  return em.transactional(async (tem) => {
    const provider = await tem.findOne(
      Provider,
      { id, account: accountId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!provider) throw notFound('Provider');
    const users = await ctx.references.providerUsers(tem, accountId, id);
    if (users.length)
      throw conflict(
        `The provider is in use by ${users.length} persona(s): ${users.join(', ')}; choose another in each first`,
      );
    tem.remove(provider);
    return { deleted: true as const, id };
  });
}
