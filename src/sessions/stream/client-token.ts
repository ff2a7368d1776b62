import type { Owner } from '../../common/owner';
import type { Encryptor } from '../../crypto/encryption';

/** How long a client token lets a browser open its session's stream. */
export const CLIENT_TOKEN_TTL_MS = 5 * 60_000;
const PURPOSE = 'session-client-token';

/** What a client token grants: one session's stream, for one account and environment, until `exp`. */
interface ClientTokenClaims {
  sid: string;
  acc: string;
  env: Owner['environment'];
  exp: number;
  /** Issued to the web console (its stream's turns spend the console's budget); absent otherwise. */
  con?: 1;
}

/** Who a client token lets in: an account's environment, and whether for the web console. */
export type ClientTokenOwner = Owner & { console?: true };

/**
 * A client token for a browser (docs/voice-stream.md "Authorization"): the claims sealed with the
 * service's encryption key (AES-256-GCM, bound to its purpose), so it can be neither read nor forged
 * nor used for another purpose, and every API instance can check it without a database read. It
 * rotates with ENCRYPTION_KEY (tokens of a previous key stay valid until they expire).
 */
export function issueClientToken(
  encryptor: Encryptor,
  owner: ClientTokenOwner,
  sessionId: string,
  now = Date.now(),
) {
  const claims: ClientTokenClaims = {
    sid: sessionId,
    acc: owner.accountId,
    env: owner.environment,
    exp: now + CLIENT_TOKEN_TTL_MS,
    ...(owner.console ? { con: 1 as const } : {}),
  };
  return {
    token: encryptor.encrypt(JSON.stringify(claims), PURPOSE),
    expiresAt: new Date(claims.exp).toISOString(),
  };
}

/** The owner a client token grants `sessionId` to, or why it does not (expired, another session, forged). */
export function verifyClientToken(
  encryptor: Encryptor,
  token: string,
  sessionId: string,
  now = Date.now(),
): { ok: true; owner: ClientTokenOwner } | { ok: false; reason: string } {
  let claims: ClientTokenClaims;
  try {
    claims = JSON.parse(encryptor.decrypt(token, PURPOSE));
  } catch {
    return { ok: false, reason: 'Invalid client token' };
  }
  if (claims.exp <= now) return { ok: false, reason: 'This client token has expired; ask for a new one' };
  if (claims.sid !== sessionId) return { ok: false, reason: 'This client token is for another session' };
  const owner: ClientTokenOwner = { accountId: claims.acc, environment: claims.env };
  return { ok: true, owner: claims.con === 1 ? { ...owner, console: true } : owner };
}
