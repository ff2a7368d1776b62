/**
 * Telnyx's webhook signature (developers.telnyx.com, "Webhook signature verification"): Ed25519, with the account's key pair, over `<telnyx-timestamp>|<raw body>`; the
 * signature base64 in `telnyx-signature-ed25519`, the timestamp (Unix seconds) in `telnyx-timestamp`.
 * The public key Telnyx's portal shows is the raw 32-byte key, base64; node:crypto takes it wrapped
 * as an SPKI DER document. A timestamp more than five minutes from now is refused (a replay), as
 * Telnyx's own libraries refuse it. Pure: node:crypto only.
 */
import { createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/** The headers that carry the signature and its timestamp (Node lower-cases header names). */
export const TELNYX_SIGNATURE_HEADER = 'telnyx-signature-ed25519';
export const TELNYX_TIMESTAMP_HEADER = 'telnyx-timestamp';
/** How far a webhook's timestamp may be from now, either way (seconds). */
export const TELNYX_SIGNATURE_TOLERANCE_S = 300;

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the raw key follows. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_SIGNATURE_BYTES = 64;

/** The Ed25519 public key of a base64 raw 32-byte key, as Telnyx's portal shows it; undefined if it is not one. */
export function telnyxPublicKey(base64Key: string): KeyObject | undefined {
  const raw = Buffer.from(base64Key, 'base64');
  if (raw.length !== 32) return undefined;
  try {
    return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** What Telnyx signs: the timestamp, a bar, and the body exactly as sent. */
const signedPayload = (timestamp: string, rawBody: string | Buffer) =>
  Buffer.concat([
    Buffer.from(`${timestamp}|`, 'utf8'),
    Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8'),
  ]);

/** The signature Telnyx sends for `rawBody` at `timestamp`, made with `privateKey` (the tests' carrier double signs with it). */
export function telnyxSignature(privateKey: KeyObject, timestamp: string, rawBody: string | Buffer): string {
  return sign(null, signedPayload(timestamp, rawBody), privateKey).toString('base64');
}

const headerOf = (headers: Readonly<Record<string, string | string[] | undefined>>, name: string) => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * Whether a webhook (its headers and raw body) is Telnyx's, signed with the private half of
 * `base64PublicKey` and sent within five minutes of `nowMs`. A missing or malformed header, a
 * stale or future timestamp, a signature of anything else: false.
 */
export function verifyTelnyxSignature(
  base64PublicKey: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  rawBody: string | Buffer,
  nowMs = Date.now(),
): boolean {
  const signature = headerOf(headers, TELNYX_SIGNATURE_HEADER);
  const timestamp = headerOf(headers, TELNYX_TIMESTAMP_HEADER);
  if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TELNYX_SIGNATURE_TOLERANCE_S) return false;
  const signatureBytes = Buffer.from(signature, 'base64');
  if (signatureBytes.length !== ED25519_SIGNATURE_BYTES) return false;
  const key = telnyxPublicKey(base64PublicKey);
  if (!key) return false;
  try {
    return verify(null, signedPayload(timestamp, rawBody), key, signatureBytes);
  } catch {
    return false;
  }
}
