import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { z } from 'zod';
import type { Config } from '../config/env';
import { unauthorized } from '../http/errors';
import { DEV_ALGORITHM, DEV_AUDIENCE, DEV_ISSUER, loadDevIdpKeys } from './dev-idp';

export interface Identity {
  issuer: string;
  subject: string;
  email?: string;
}

export type IdTokenVerifier = (token: string) => Promise<Identity>;

/** Seconds an `iat` may lie in the future (clock skew between the identity provider and us). */
export const IAT_CLOCK_SKEW_SECONDS = 60;

const noNul = (value: string) => !value.includes('\u0000');

/**
 * The claims the platform reads, type-checked after jose verified the signature: the subject and
 * email reach database queries, so they must be bounded strings (never objects, which the ORM would
 * read as query operators). `exp` is required, so no token is valid forever; other claims pass.
 * Bounds follow the `accounts` columns (issuer and subject 255, email 320).
 */
export const IdTokenClaimsSchema = z.looseObject({
  iss: z.string().min(1).max(255).refine(noNul, 'must not contain NUL characters'),
  sub: z.string().min(1).max(255).refine(noNul, 'must not contain NUL characters'),
  exp: z.number().finite(),
  iat: z
    .number()
    .finite()
    .refine((iat) => iat <= Date.now() / 1000 + IAT_CLOCK_SKEW_SECONDS, 'is in the future')
    .optional(),
  email: z.string().max(320).refine(noNul, 'must not contain NUL characters').nullish(),
});

/** Checks the verified payload's claims; a bad claim is a 401 naming it, like any other bad token. */
export function identityFromClaims(payload: unknown): Identity {
  const parsed = IdTokenClaimsSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const claim = issue.path.map(String).join('.') || 'payload';
    const present = (payload as Record<string, unknown>)[String(issue.path[0])] !== undefined;
    const problem = !present ? 'is missing' : issue.code === 'custom' ? issue.message : 'is invalid';
    throw unauthorized(`ID token rejected: ${claim} claim ${problem}`);
  }
  const claims = parsed.data;
  return { issuer: claims.iss, subject: claims.sub, email: claims.email ?? undefined };
}

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
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms,
        clockTolerance: 5,
        requiredClaims: ['exp', 'sub'],
      });
      return identityFromClaims(payload);
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
