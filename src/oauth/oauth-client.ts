import { type BaseClient, custom, Issuer } from 'openid-client';
import type { CoreContext } from '../common/context';
import { ApiError, validationFailed } from '../http/errors';
import { ANSWER_LIMITS, OutboundError } from '../outbound/answer-limits';
import { urlProblems } from '../outbound/http';
import { limitedRequestOptions } from '../outbound/limited-agent';
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

/**
 * The openid-client client for a provider (plain OAuth 2.0 metadata), its HTTP behind the SSRF guard
 * and within ANSWER_LIMITS.oauthEndpoint.
 */
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
  client[custom.http_options] = (url, options) => ({
    ...options,
    ...limitedRequestOptions(url, ctx.config.outbound, ANSWER_LIMITS.oauthEndpoint),
  });
  return client;
}

/** A provider's failure: 502 UPSTREAM_ERROR, or RESPONSE_TOO_LARGE for an answer past its cap. */
export function upstream(message: string, error?: unknown): ApiError {
  const detail = error instanceof Error ? `: ${error.message}` : '';
  const tooLarge = error instanceof OutboundError && error.kind === 'too_large';
  return new ApiError(502, tooLarge ? 'RESPONSE_TOO_LARGE' : 'UPSTREAM_ERROR', `${message}${detail}`);
}
