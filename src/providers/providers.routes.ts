import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import {
  CreateProviderBody,
  DeletedProvider,
  ListProvidersQuery,
  ProviderEnvelope,
  ProviderIdParams,
  ProviderList,
  UpdateProviderBody,
} from './providers.schemas';
import {
  createProvider,
  deleteProvider,
  findProvider,
  listProviders,
  providerView,
  updateProvider,
} from './providers.service';

/** The account's providers (docs/providers.md): chat models, speech-to-text and voices, with their keys. */
export function mountProviderRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/providers',
      summary: 'Connect a provider (a chat model, speech-to-text or voice service)',
      description:
        'The key is encrypted at rest (AES-256-GCM) and never returned. A provider is the account’s: personas of either environment may pick it. A `baseUrl` must be a public https URL.',
      scope: 'providers:write',
      body: CreateProviderBody,
      success: { status: 201, description: 'The provider', schema: ProviderEnvelope },
      handler: async ({ auth, body }) => ok(await createProvider(ctx, em(), auth.accountId, body)),
    })
    .route({
      method: 'get',
      path: '/providers',
      summary: 'List the account’s providers (never their keys)',
      scope: 'providers:read',
      query: ListProvidersQuery,
      success: { description: 'Providers, oldest first', schema: ProviderList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listProviders(em(), auth.accountId, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/providers/:id',
      summary: 'Get a provider',
      scope: 'providers:read',
      params: ProviderIdParams,
      success: { description: 'The provider', schema: ProviderEnvelope },
      handler: async ({ auth, params }) =>
        ok(providerView(await findProvider(em(), auth.accountId, params.id))),
    })
    .route({
      method: 'patch',
      path: '/providers/:id',
      summary: 'Rename a provider, move it or replace its key',
      scope: 'providers:write',
      params: ProviderIdParams,
      body: UpdateProviderBody,
      success: { description: 'The provider', schema: ProviderEnvelope },
      handler: async ({ auth, params, body }) =>
        ok(await updateProvider(ctx, em(), auth.accountId, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/providers/:id',
      summary: 'Delete a provider no persona picks (409 naming those that do)',
      scope: 'providers:write',
      params: ProviderIdParams,
      success: { description: 'Deleted', schema: DeletedProvider },
      handler: async ({ auth, params }) => ok(await deleteProvider(ctx, em(), auth.accountId, params.id)),
    });
}
