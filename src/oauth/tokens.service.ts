import type { EntityManager } from '@mikro-orm/postgresql';
import type { TokenSet } from 'openid-client';
import type { AppContext, CoreContext } from '../common/context';
import type { Page } from '../common/owned';
import { findOwned, listOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import { ApiError, conflict, validationFailed } from '../http/errors';
import { OAuthProvider, OAuthToken } from './oauth.entity';
import { clientFor, upstream } from './oauth-client';

/** Access tokens this close to expiry are refreshed before use. */
const REFRESH_MARGIN_MS = 30_000;

export const tokenAad = (t: Pick<OAuthToken, 'id' | 'account' | 'environment'>, kind: 'access' | 'refresh') =>
  `oauth-${kind}-token:${t.id}:${t.account}:${t.environment}`;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

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

export function storeTokens(ctx: CoreContext, token: OAuthToken, tokens: TokenSet): void {
  token.accessTokenCiphertext = ctx.encryptor.encrypt(tokens.access_token!, tokenAad(token, 'access'));
  if (tokens.refresh_token) {
    token.refreshTokenCiphertext = ctx.encryptor.encrypt(tokens.refresh_token, tokenAad(token, 'refresh'));
  }
  token.expiresAt = tokens.expires_at ? new Date(tokens.expires_at * 1000) : null;
}

export async function listTokens(em: EntityManager, owner: Owner, page: Page) {
  const { items, total } = await listOwned(em, OAuthToken, owner, page);
  const providers = await em.find(OAuthProvider, { id: [...new Set(items.map((t) => t.providerId))] });
  const byId = new Map(providers.map((p) => [p.id, p]));
  return { data: items.map((t) => tokenView(t, byId.get(t.providerId))), total };
}

/**
 * Revokes at the provider (when it has a revocation URL) and marks the token revoked. The token's row
 * is locked throughout: of concurrent revokes one revokes it (once at the provider), the others then
 * find it revoked (409, as any later revoke).
 */
export async function revokeToken(ctx: AppContext, em: EntityManager, owner: Owner, id: string) {
  return em.transactional(async (tem) => {
    const token = await findOwned(tem, OAuthToken, owner, id, 'OAuth token', { lock: true });
    if (token.status === 'revoked') throw conflict(`OAuth token ${id} is revoked already`);
    const provider = await tem.findOneOrFail(OAuthProvider, { id: token.providerId });
    let providerRevoked = false;
    if (provider.revocationUrl) {
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
    return { ...tokenView(token, provider), providerRevoked };
  });
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
