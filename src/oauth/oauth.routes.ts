import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import { ApiError } from '../http/errors';
import { completeAuthorization, startAuthorization } from './authorization.service';
import {
  AuthorizeBody,
  AuthorizeEnvelope,
  CallbackQuery,
  CreateProviderBody,
  DeletedProvider,
  IdParams,
  ListQuery,
  ProviderEnvelope,
  ProviderList,
  RevokedTokenEnvelope,
  TokenEnvelope,
  TokenList,
  UpdateProviderBody,
} from './oauth.schemas';
import {
  createProvider,
  deleteProvider,
  getProvider,
  listProviders,
  updateProvider,
} from './providers.service';
import { listTokens, revokeToken } from './tokens.service';

export function mountOAuthRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/oauth/providers',
      idempotent: true,
      summary: 'Register an OAuth 2.0 provider',
      scope: 'oauth:write',
      body: CreateProviderBody,
      success: { status: 201, description: 'The provider (no client secret)', schema: ProviderEnvelope },
      handler: async ({ auth, body }) => ok(await createProvider(ctx, em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/oauth/providers',
      summary: 'List OAuth providers',
      scope: 'oauth:read',
      query: ListQuery,
      success: { description: 'Providers', schema: ProviderList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listProviders(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/oauth/providers/:id',
      summary: 'Get an OAuth provider',
      scope: 'oauth:read',
      params: IdParams,
      success: { description: 'The provider', schema: ProviderEnvelope },
      handler: async ({ auth, params }) => ok(await getProvider(em(), auth, params.id)),
    })
    .route({
      method: 'put',
      path: '/oauth/providers/:id',
      summary: 'Update an OAuth provider',
      scope: 'oauth:write',
      params: IdParams,
      body: UpdateProviderBody,
      success: { description: 'The provider', schema: ProviderEnvelope },
      handler: async ({ auth, params, body }) => ok(await updateProvider(ctx, em(), auth, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/oauth/providers/:id',
      summary: 'Delete an OAuth provider and its tokens',
      scope: 'oauth:write',
      params: IdParams,
      success: { description: 'Deleted', schema: DeletedProvider },
      handler: async ({ auth, params }) => ok(await deleteProvider(em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/oauth/authorize',
      summary: 'Start connecting an account: an authorization URL with state and PKCE',
      scope: 'oauth:write',
      body: AuthorizeBody,
      success: { status: 201, description: 'Where to send the user', schema: AuthorizeEnvelope },
      handler: async ({ auth, body }) => ok(await startAuthorization(ctx, em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/oauth/tokens',
      summary: 'List connected accounts (never the tokens themselves)',
      scope: 'oauth:read',
      query: ListQuery,
      success: { description: 'Tokens', schema: TokenList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listTokens(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'delete',
      path: '/oauth/tokens/:id',
      summary: 'Revoke a token (at the provider too, when it has a revocation URL)',
      description: 'A revoked token stays listed; revoking it again → 409 `CONFLICT`.',
      scope: 'oauth:write',
      params: IdParams,
      success: { description: 'The revoked token', schema: RevokedTokenEnvelope },
      handler: async ({ auth, params }) => ok(await revokeToken(ctx, em(), auth, params.id)),
    });
}

/** The provider redirects the user's browser here: no API key; the one-time `state` identifies the request. */
export function mountOAuthCallback(publicRoot: ApiRoot<null>, ctx: AppContext): void {
  publicRoot.route({
    method: 'get',
    path: '/oauth/callback',
    summary: 'OAuth redirect target: exchanges the code (state and PKCE checked) and stores the token',
    description:
      'Unauthenticated: called by the user’s browser. An unknown, expired or reused `state` is a 400.',
    query: CallbackQuery,
    success: { description: 'The stored token (never the token itself)', schema: TokenEnvelope },
    handler: async ({ query }) => {
      if (query.error) {
        throw new ApiError(
          400,
          'VALIDATION_FAILED',
          `The provider refused: ${query.error_description ?? query.error}`,
          [`error: ${query.error}`],
        );
      }
      if (!query.code) throw new ApiError(400, 'VALIDATION_FAILED', 'Missing code', ['code: required']);
      return ok(await completeAuthorization(ctx, ctx.orm.em, { code: query.code, state: query.state }));
    },
  });
}
