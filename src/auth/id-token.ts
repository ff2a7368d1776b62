import { createHash } from 'node:crypto';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { z } from 'zod';
import type { Config } from '../config/env';
import { ApiError, unauthorized } from '../http/errors';
import { ANSWER_LIMITS, OutboundError } from '../outbound/answer-limits';
import { limitedAgent } from '../outbound/limited-agent';
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
  return verifiedClaims(payload).identity;
}

/** A verified token's identity and its `exp` (seconds since the epoch). */
export interface VerifiedIdToken {
  identity: Identity;
  exp: number;
}

function verifiedClaims(payload: unknown): VerifiedIdToken {
  const parsed = IdTokenClaimsSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const claim = issue.path.map(String).join('.') || 'payload';
    const present = (payload as Record<string, unknown>)[String(issue.path[0])] !== undefined;
    const problem = !present ? 'is missing' : issue.code === 'custom' ? issue.message : 'is invalid';
    throw unauthorized(`ID token rejected: ${claim} claim ${problem}`);
  }
  const claims = parsed.data;
  return {
    identity: { issuer: claims.iss, subject: claims.sub, email: claims.email ?? undefined },
    exp: claims.exp,
  };
}

/**
 * A token valid for longer than `maxSeconds` (counted from its `iat`, and from now) is refused: a
 * leaked token with an `exp` years away would otherwise open the console until its account is gone.
 */
function refuseLongLived(exp: number, iat: number | undefined, maxSeconds: number): void {
  const now = Date.now() / 1000;
  const lifetime = Math.max(exp - now, iat === undefined ? 0 : exp - iat);
  if (lifetime > maxSeconds + IAT_CLOCK_SKEW_SECONDS) {
    throw unauthorized(`ID token rejected: exp claim is more than ${maxSeconds} s after its issue`);
  }
}

/** Verified tokens remembered at most (least recently used first out). */
export const ID_TOKEN_CACHE_ENTRIES = 10_000;
/**
 * A remembered verification is used for at most this long (and never past the token's `exp`), so a
 * signing key the identity provider withdraws stops being honoured about as soon as without the cache.
 */
export const ID_TOKEN_CACHE_MAX_AGE_MS = 60_000;

interface CachedVerification {
  identity: Identity;
  /** Epoch ms after which the entry is not used: min(exp, verification + max age). */
  until: number;
}

/**
 * Remembers successful verifications of `verify`, keyed by the SHA-256 of the whole token (header,
 * claims and signature: a token differing in any byte is verified afresh; tokens themselves are not
 * kept). An entry is used only before the token's `exp` and for at most `maxAgeMs`; past that the
 * token goes through full verification again (jose's expiry check and clock tolerance decide).
 * Failures are never remembered. Bounded: the least recently used entry goes first.
 */
export function cachingIdTokenVerifier(
  verify: (token: string) => Promise<VerifiedIdToken>,
  options: { maxEntries?: number; maxAgeMs?: number; now?: () => number } = {},
): IdTokenVerifier {
  const maxEntries = options.maxEntries ?? ID_TOKEN_CACHE_ENTRIES;
  const maxAgeMs = options.maxAgeMs ?? ID_TOKEN_CACHE_MAX_AGE_MS;
  const now = options.now ?? Date.now;
  const cache = new Map<string, CachedVerification>();
  return async (token) => {
    const key = createHash('sha256').update(token).digest('base64');
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      if (now() < hit.until) {
        cache.set(key, hit); // most recently used last
        return { ...hit.identity };
      }
    }
    const { identity, exp } = await verify(token);
    const verifiedAt = now();
    const until = Math.min(exp * 1000, verifiedAt + maxAgeMs);
    if (verifiedAt < until) {
      cache.delete(key);
      cache.set(key, { identity: { ...identity }, until });
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    }
    return identity;
  };
}

/** The identity provider's keys could not be read within their limits: the token is not at fault. */
function identityKeysUnreadable(error: OutboundError): ApiError {
  const why = error.kind === 'too_large' ? 'answered more than its limit' : 'did not answer in time';
  return new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    `The identity provider's signing keys ${why}; retry shortly`,
  );
}

/**
 * Verifies console ID tokens with jose: signature against the JWKS, issuer, audience and algorithm
 * pinned, expiry checked. With AUTH_* unset outside production, the local dev IdP's key is trusted.
 * Successful verifications are remembered until the token expires (see `cachingIdTokenVerifier`).
 */
export async function createIdTokenVerifier(config: Config): Promise<IdTokenVerifier> {
  let keys: JWTVerifyGetKey;
  let issuer: string;
  let audience: string;
  let algorithms: string[];
  if (config.auth) {
    const jwksUrl = new URL(config.auth.jwksUrl);
    keys = createRemoteJWKSet(jwksUrl, {
      cooldownDuration: 30_000,
      cacheMaxAge: 600_000,
      timeoutDuration: ANSWER_LIMITS.identityKeys.timeoutMs,
      agent: limitedAgent(jwksUrl, ANSWER_LIMITS.identityKeys),
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

  return cachingIdTokenVerifier(async (token) => {
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms,
        clockTolerance: 5,
        requiredClaims: ['exp', 'sub'],
      });
      const verified = verifiedClaims(payload);
      refuseLongLived(verified.exp, (payload as { iat?: number }).iat, config.authMaxTokenLifetimeSeconds);
      return verified;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw unauthorized('ID token has expired');
      if (error instanceof joseErrors.JWTClaimValidationFailed) {
        throw unauthorized(`ID token rejected: ${error.claim} claim check failed`);
      }
      if (error instanceof joseErrors.JOSEError) throw unauthorized(`Invalid ID token (${error.code})`);
      if (error instanceof OutboundError) throw identityKeysUnreadable(error);
      throw error;
    }
  });
}
