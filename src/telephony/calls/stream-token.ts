import type { Knex } from 'knex';
import type { Encryptor } from '../../crypto/encryption';

/** How long a call's stream token is good for after it was minted. */
export const STREAM_TOKEN_TTL_MS = 10 * 60_000;
/** The `<Parameter>` of the TwiML's `<Stream>` that carries it (Twilio allows no query string there). */
export const STREAM_TOKEN_PARAMETER = 'callToken';

const AAD = 'call-stream-token';

/**
 * A call's stream token: the call id and an expiry, encrypted (AES-256-GCM, so neither readable nor
 * forgeable without ENCRYPTION_KEY). It goes to the carrier in the TwiML and comes back in the media
 * stream's `start` message; the media transport checks it with `takeStreamToken`.
 */
export function mintStreamToken(encryptor: Encryptor, callId: string, now = Date.now()): string {
  return encryptor.encrypt(JSON.stringify({ callId, exp: now + STREAM_TOKEN_TTL_MS }), AAD);
}

/** The call a token names, if it is one of ours and not expired (it may still have been used). */
export function readStreamToken(encryptor: Encryptor, token: string, now = Date.now()): string | undefined {
  try {
    const { callId, exp } = JSON.parse(encryptor.decrypt(token, AAD)) as { callId?: unknown; exp?: unknown };
    if (typeof callId !== 'string' || typeof exp !== 'number' || exp <= now) return undefined;
    return callId;
  } catch {
    return undefined;
  }
}

/**
 * Takes a stream token for `callId`, once: true when it names that call, has not expired, and no
 * stream used the call's token before (marked used on the call's row in the same statement, so two
 * streams racing with one token get one true). A token of another call, a forged, expired or
 * reused one: false.
 */
export async function takeStreamToken(
  deps: { knex: Knex; encryptor: Encryptor },
  callId: string,
  token: string,
): Promise<boolean> {
  if (readStreamToken(deps.encryptor, token) !== callId) return false;
  const { rows } = await deps.knex.raw<{ rows: unknown[] }>(
    'update calls set stream_token_used_at = now() where id = ? and stream_token_used_at is null returning id',
    [callId],
  );
  return rows.length === 1;
}
