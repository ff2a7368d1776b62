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
export function mintStreamToken(encryptor: Encryptor, callId: string, now = Date.now(), seq = 0): string {
  return encryptor.encrypt(JSON.stringify({ callId, exp: now + STREAM_TOKEN_TTL_MS, seq }), AAD);
}

/**
 * The call a token names and its number (0: the call's first stream; n: the caller's n-th return
 * from a warm transfer), if it is one of ours and not expired (it may still have been used).
 */
export function readStreamToken(
  encryptor: Encryptor,
  token: string,
  now = Date.now(),
): { callId: string; seq: number } | undefined {
  try {
    const { callId, exp, seq } = JSON.parse(encryptor.decrypt(token, AAD)) as Record<string, unknown>;
    if (typeof callId !== 'string' || typeof exp !== 'number' || exp <= now) return undefined;
    return { callId, seq: typeof seq === 'number' && Number.isInteger(seq) && seq >= 0 ? seq : 0 };
  } catch {
    return undefined;
  }
}

/**
 * Takes a stream token for `callId`, once: true when it names that call, has not expired, and is
 * the call's next one (the first, then each return from a warm transfer in order: counted on the
 * call's row in the same statement, so two streams racing with one token get one true). A token of
 * another call, a forged, expired, reused or skipped one: false.
 */
export async function takeStreamToken(
  deps: { knex: Knex; encryptor: Encryptor },
  callId: string,
  token: string,
): Promise<boolean> {
  const read = readStreamToken(deps.encryptor, token);
  if (read?.callId !== callId) return false;
  const { rows } = await deps.knex.raw<{ rows: unknown[] }>(
    `update calls set stream_token_used_at = now(), stream_tokens_taken = ? + 1
      where id = ? and stream_tokens_taken = ? and (? > 0 or stream_token_used_at is null) returning id`,
    [read.seq, callId, read.seq, read.seq],
  );
  return rows.length === 1;
}
