import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type BaseClient, custom, generators, Issuer, type TokenSet } from 'openid-client';
import type { AppContext, CoreContext } from '../app/context';
import { findOwned, listOwned, type Owner } from '../common/owned';
import { ApiError, validationFailed } from '../http/errors';
import { guardedLookup, urlProblems } from '../outbound/http';
import { OAuthAuthorization, OAuthProvider, OAuthToken } from './oauth.entity';

/** A pending authorization (state + PKCE verifier) is valid this long. */
const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;
/** Access tokens this close to expiry are refreshed before use. */
const REFRESH_MARGIN_MS = 30_000;

const secretAad = (p: Pick<OAuthProvider, 'id' | 'account' | 'environment'>) =>
  `oauth-client-secret:${p.id}:${p.account}:${p.environment}`;
const tokenAad = (t: Pick<OAuthToken, 'id' | 'account' | 'environment'>, kind: 'access' | 'refresh') =>
  `oauth-${kind}-token:${t.id}:${t.account}:${t.environment}`;
const verifierAad = (state: string) => `oauth-code-verifier:${state}`;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

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

export function tokenView(t: OAuthToken, provider?: OAuthProvider) {
  const expired = t.expiresAt ? t.expiresAt.getTime() <= Date.now() : false;
  return {
    id: t.id,
    providerId: t.providerId,
    providerName: provider?.name ?? null,
    scopes: t.scopes,
    tokenType: t.tokenType,
    expiresAt: iso(t.expiresAt),
    refreshable: Boolean(t.refreshTokenCiphertext),
    status:
      t.status === 'revoked' ? ('revoked' as const) : expired ? ('expired' as const) : ('active' as const),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

function checkUrls(ctx: AppContext, urls: Record<string, string | null | undefined>): void {
  const problems = urlProblems(ctx.config.outbound, urls);
  if (problems.length) throw validationFailed(problems);
}

/** `<field>: no such OAuth token` when `tokenId` is set and is not one of the owner's tokens. */
export async function oauthTokenProblem(
  em: EntityManager,
  owner: Owner,
  tokenId: string | null | undefined,
  field: string,
): Promise<string | undefined> {
  if (!tokenId) return undefined;
  const token = await em.findOne(OAuthToken, {
    id: tokenId,
    account: owner.accountId,
    environment: owner.environment,
  });
  return token ? undefined : `${field}: no such OAuth token`;
}

/** The openid-client client for a provider (plain OAuth 2.0 metadata), its HTTP behind the SSRF guard. */
function clientFor(ctx: CoreContext, provider: OAuthProvider, redirectUri?: string): BaseClient {
  const issuer = new Issuer({
    issuer: new URL(provider.authorizationUrl).origin,
    authorization_endpoint: provider.authorizationUrl,
    token_endpoint: provider.tokenUrl,
    ...(provider.revocationUrl ? { revocation_endpoint: provider.revocationUrl } : {}),
  });
  const client = new issuer.Client({
    client_id: provider.clientId,
    client_secret: ctx.encryptor.decrypt(provider.clientSecretCiphertext, secretAad(provider)),
    redirect_uris: redirectUri ? [redirectUri] : undefined,
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  const { allowPrivate } = ctx.config.outbound;
  client[custom.http_options] = (_url, options) => ({
    ...options,
    timeout: 15_000,
    ...(allowPrivate ? {} : { lookup: guardedLookup as never }),
  });
  return client;
}

const findProvider = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, OAuthProvider, owner, id, 'OAuth provider');

export interface ProviderInput {
  name: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl?: string | null;
  clientId: string;
  clientSecret: string;
  scopes?: string[];
  authorizeParams?: Record<string, string>;
}

export async function createProvider(ctx: AppContext, em: EntityManager, owner: Owner, input: ProviderInput) {
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

export async function listProviders(
  em: EntityManager,
  owner: Owner,
  page: { limit: number; offset: number },
) {
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
  changes: Partial<ProviderInput>,
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
  const provider = await findProvider(em, owner, id);
  await em.remove(provider).flush();
  return { deleted: true as const, id };
}

/** The platform's own callback, used when the request gives no `redirectUri`. */
export function defaultRedirectUri(ctx: AppContext): string {
  const base = ctx.config.publicUrl ?? `http://localhost:${ctx.config.port}`;
  return `${base.replace(/\/$/, '')}/api/v2/developers/oauth/callback`;
}

/**
 * Deletes authorizations (state + encrypted PKCE verifier) that expired over an hour ago: an
 * abandoned consent screen leaves one behind. Run by the housekeeping schedule. A state past its
 * 10 minutes is refused whether its row is there or not, so nothing a caller sees changes.
 */
export async function deleteExpiredAuthorizations(ctx: Pick<CoreContext, 'orm'>): Promise<number> {
  const rows = await ctx.orm.em.getConnection().execute<{ count: string }[]>(
    `with gone as (delete from oauth_authorizations where expires_at < now() - interval '1 hour' returning 1)
       select count(*) as count from gone`,
  );
  return Number(rows[0].count);
}

/** Starts an authorization: a one-time `state` and a PKCE (S256) verifier kept encrypted for the callback. */
export async function startAuthorization(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  input: { providerId: string; scopes?: string[]; redirectUri?: string },
) {
  const provider = await findProvider(em, owner, input.providerId);
  const redirectUri = input.redirectUri ?? defaultRedirectUri(ctx);
  if (input.redirectUri) checkUrls(ctx, { redirectUri: input.redirectUri });
  const state = randomBytes(32).toString('base64url');
  const verifier = generators.codeVerifier();
  const scopes = input.scopes ?? provider.scopes;
  const pending = em.create(OAuthAuthorization, {
    state,
    account: owner.accountId,
    environment: owner.environment,
    providerId: provider.id,
    codeVerifierCiphertext: ctx.encryptor.encrypt(verifier, verifierAad(state)),
    redirectUri,
    scopes,
    expiresAt: new Date(Date.now() + AUTHORIZATION_TTL_MS),
  });
  await em.flush();
  const authorizationUrl = clientFor(ctx, provider, redirectUri).authorizationUrl({
    ...(provider.authorizeParams ?? {}),
    ...(scopes.length ? { scope: scopes.join(' ') } : {}),
    state,
    code_challenge: generators.codeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { authorizationUrl, state, redirectUri, expiresAt: pending.expiresAt.toISOString() };
}

/**
 * The provider's redirect: `state` must be one we issued, unexpired and unused (it is consumed
 * atomically, so a replay fails); the code is exchanged with the PKCE verifier and the tokens are
 * stored encrypted.
 */
export async function completeAuthorization(
  ctx: AppContext,
  em: EntityManager,
  input: { code: string; state: string },
) {
  const consumed = await em
    .getConnection()
    .execute<{ state: string }[]>(
      'update oauth_authorizations set used_at = now() where state = ? and used_at is null and expires_at > now() returning state',
      [input.state],
    );
  if (consumed.length === 0) {
    throw new ApiError(400, 'VALIDATION_FAILED', 'Unknown, expired or already used state', [
      'state: unknown, expired or already used',
    ]);
  }
  const pending = await em.findOneOrFail(OAuthAuthorization, { state: input.state });
  const provider = await em.findOneOrFail(OAuthProvider, { id: pending.providerId });
  const verifier = ctx.encryptor.decrypt(pending.codeVerifierCiphertext, verifierAad(pending.state));
  let tokens: TokenSet;
  try {
    // state was checked (and consumed) above; the library authenticates the client, sends the
    // PKCE verifier and parses the answer. An id_token (OIDC providers) is not needed and ignored.
    tokens = await clientFor(ctx, provider, pending.redirectUri).grant({
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: pending.redirectUri,
      code_verifier: verifier,
    });
  } catch (error) {
    throw upstream('The provider refused the authorization code', error);
  }
  if (!tokens.access_token) throw upstream('The provider returned no access token');
  const token = em.create(OAuthToken, {
    account: pending.account,
    environment: pending.environment,
    providerId: provider.id,
    accessTokenCiphertext: '',
    tokenType: tokens.token_type ?? 'Bearer',
    scopes: tokens.scope ? tokens.scope.split(' ').filter(Boolean) : pending.scopes,
    expiresAt: tokens.expires_at ? new Date(tokens.expires_at * 1000) : null,
  });
  storeTokens(ctx, token, tokens);
  await em.flush();
  return tokenView(token, provider);
}

function storeTokens(ctx: CoreContext, token: OAuthToken, tokens: TokenSet): void {
  token.accessTokenCiphertext = ctx.encryptor.encrypt(tokens.access_token!, tokenAad(token, 'access'));
  if (tokens.refresh_token) {
    token.refreshTokenCiphertext = ctx.encryptor.encrypt(tokens.refresh_token, tokenAad(token, 'refresh'));
  }
  token.expiresAt = tokens.expires_at ? new Date(tokens.expires_at * 1000) : null;
}

function upstream(message: string, error?: unknown): ApiError {
  const detail = error instanceof Error ? `: ${error.message}` : '';
  return new ApiError(502, 'UPSTREAM_ERROR', `${message}${detail}`);
}

export async function listTokens(em: EntityManager, owner: Owner, page: { limit: number; offset: number }) {
  const { items, total } = await listOwned(em, OAuthToken, owner, page);
  const providers = await em.find(OAuthProvider, { id: [...new Set(items.map((t) => t.providerId))] });
  const byId = new Map(providers.map((p) => [p.id, p]));
  return { data: items.map((t) => tokenView(t, byId.get(t.providerId))), total };
}

/** Revokes at the provider (when it has a revocation URL) and marks the token revoked. */
export async function revokeToken(ctx: AppContext, em: EntityManager, owner: Owner, id: string) {
  const token = await findOwned(em, OAuthToken, owner, id, 'OAuth token');
  const provider = await em.findOneOrFail(OAuthProvider, { id: token.providerId });
  let providerRevoked = false;
  if (provider.revocationUrl && token.status === 'active') {
    const client = clientFor(ctx, provider);
    try {
      if (token.refreshTokenCiphertext) {
        await client.revoke(
          ctx.encryptor.decrypt(token.refreshTokenCiphertext, tokenAad(token, 'refresh')),
          'refresh_token',
        );
      }
      await client.revoke(
        ctx.encryptor.decrypt(token.accessTokenCiphertext, tokenAad(token, 'access')),
        'access_token',
      );
      providerRevoked = true;
    } catch (error) {
      throw upstream('The provider did not revoke the token', error);
    }
  }
  token.status = 'revoked';
  token.updatedAt = new Date();
  await em.flush();
  return { ...tokenView(token, provider), providerRevoked };
}

/**
 * A usable access token for calls made on the developer's behalf (MCP servers, tools): refreshed
 * first when it expires within 30 s, under a row lock so concurrent callers refresh once.
 */
export async function accessTokenFor(ctx: CoreContext, owner: Owner, tokenId: string): Promise<string> {
  const em = ctx.orm.em.fork();
  return em.transactional(async (tem) => {
    const token = await tem.findOne(
      OAuthToken,
      { id: tokenId, account: owner.accountId, environment: owner.environment },
      { lockMode: 4 /* PESSIMISTIC_WRITE */ },
    );
    if (!token) throw validationFailed([`oauthTokenId: no such OAuth token`]);
    if (token.status === 'revoked')
      throw new ApiError(409, 'CONFLICT', 'The OAuth token was revoked; connect again');
    const expiring = token.expiresAt && token.expiresAt.getTime() - REFRESH_MARGIN_MS <= Date.now();
    if (!expiring) return ctx.encryptor.decrypt(token.accessTokenCiphertext, tokenAad(token, 'access'));
    if (!token.refreshTokenCiphertext) {
      throw new ApiError(409, 'CONFLICT', 'The OAuth token expired and cannot be refreshed; connect again');
    }
    const provider = await tem.findOneOrFail(OAuthProvider, { id: token.providerId });
    let refreshed: TokenSet;
    try {
      refreshed = await clientFor(ctx, provider).grant({
        grant_type: 'refresh_token',
        refresh_token: ctx.encryptor.decrypt(token.refreshTokenCiphertext, tokenAad(token, 'refresh')),
      });
    } catch (error) {
      throw upstream('Refreshing the OAuth token failed', error);
    }
    if (!refreshed.access_token) throw upstream('The provider returned no access token on refresh');
    storeTokens(ctx, token, refreshed);
    token.updatedAt = new Date();
    return refreshed.access_token;
  });
}
