import { type BaseClient, custom, Issuer } from 'openid-client';
import type { CoreContext } from '../common/context';
import { ApiError, validationFailed } from '../http/errors';
import { guardedLookup, urlProblems } from '../outbound/http';
import type { OAuthProvider } from './oauth.entity';

export const secretAad = (p: Pick<OAuthProvider, 'id' | 'account' | 'environment'>) =>
  `oauth-client-secret:${p.id}:${p.account}:${p.environment}`;

export function checkUrls(
  ctx: Pick<CoreContext, 'config'>,
  urls: Record<string, string | null | undefined>,
): void {
  const problems = urlProblems(ctx.config.outbound, urls);
  if (problems.length) throw validationFailed(problems);
}

/** The openid-client client for a provider (plain OAuth 2.0 metadata), its HTTP behind the SSRF guard. */
export function clientFor(ctx: CoreContext, provider: OAuthProvider, redirectUri?: string): BaseClient {
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

export function upstream(message: string, error?: unknown): ApiError {
  const detail = error instanceof Error ? `: ${error.message}` : '';
  return new ApiError(502, 'UPSTREAM_ERROR', `${message}${detail}`);
}
