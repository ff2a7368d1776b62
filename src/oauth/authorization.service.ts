import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { generators, type TokenSet } from 'openid-client';
import type { AppContext, CoreContext } from '../common/context';
import type { Owner } from '../common/owner';
import { ApiError } from '../http/errors';
import { OAuthAuthorization, OAuthProvider, OAuthToken } from './oauth.entity';
import type { AuthorizeInput } from './oauth.schemas';
import { checkUrls, clientFor, upstream } from './oauth-client';
import { findProvider } from './providers.service';
import { storeTokens, tokenView } from './tokens.service';

/** A pending authorization (state + PKCE verifier) is valid this long. */
const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;

export const verifierAad = (state: string) => `oauth-code-verifier:${state}`;

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
  input: AuthorizeInput,
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
