import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import type { Config } from '../config/env';
import { unauthorized } from '../http/errors';
import { DEV_ALGORITHM, DEV_AUDIENCE, DEV_ISSUER, loadDevIdpKeys } from './dev-idp';

export interface Identity {
  issuer: string;
  subject: string;
  email?: string;
}

export type IdTokenVerifier = (token: string) => Promise<Identity>;

/**
 * Verifies console ID tokens with jose: signature against the JWKS, issuer, audience and algorithm
 * pinned, expiry checked. With AUTH_* unset outside production, the local dev IdP's key is trusted.
 */
export async function createIdTokenVerifier(config: Config): Promise<IdTokenVerifier> {
  let keys: JWTVerifyGetKey;
  let issuer: string;
  let audience: string;
  let algorithms: string[];
  if (config.auth) {
    keys = createRemoteJWKSet(new URL(config.auth.jwksUrl), {
      cooldownDuration: 30_000,
      cacheMaxAge: 600_000,
    });
    ({ issuer, audience, algorithms } = config.auth);
  } else {
    if (config.isProduction)
      throw new Error('AUTH_ISSUER, AUTH_AUDIENCE and AUTH_JWKS_URL are required in production');
    const { publicJwk } = await loadDevIdpKeys(config.dataDir);
    keys = createLocalJWKSet({ keys: [publicJwk] });
    issuer = DEV_ISSUER;
    audience = DEV_AUDIENCE;
    algorithms = [DEV_ALGORITHM];
  }

  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keys, { issuer, audience, algorithms, clockTolerance: 5 });
      if (!payload.sub) throw unauthorized('ID token has no subject');
      return {
        issuer: payload.iss as string,
        subject: payload.sub,
        email: typeof payload.email === 'string' ? payload.email : undefined,
      };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw unauthorized('ID token has expired');
      if (error instanceof joseErrors.JWTClaimValidationFailed) {
        throw unauthorized(`ID token rejected: ${error.claim} claim check failed`);
      }
      if (error instanceof joseErrors.JOSEError) throw unauthorized(`Invalid ID token (${error.code})`);
      throw error;
    }
  };
}
