import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
} from 'node:crypto';

/**
 * Webhook signing. Every delivery carries two equivalent signatures over the exact body bytes:
 *  - `X-Service-Signature: t=<unix seconds>,v1=<hex>` (docs/api-contract.md "Webhook signatures"):
 *    HMAC-SHA256 of `<t>.<body>` keyed with the UTF-8 bytes of the whole `whsec_…` secret, the
 *    scheme Stripe's verifiers use;
 *  - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`):
 *    HMAC-SHA256 of `<id>.<t>.<body>` keyed with the base64-decoded part after `whsec_`.
 * During a secret rotation both the new and the previous secret sign, so each header carries two
 * `v1` values and receivers holding either secret accept the delivery. A webhook created with
 * `signing: { algorithm: 'ed25519' }` gets `webhook-signature: v1a,<base64>` instead: Ed25519 over
 * `<id>.<t>.<body>`, verified with its `whpk_…` public key (Standard Webhooks' asymmetric scheme).
 */

export const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks format). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

const hmacHex = (secret: string, t: number, body: string | Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.`).update(body).digest('hex');

const standardSignature = (secret: string, msgId: string, t: number, body: string | Buffer) =>
  createHmac('sha256', Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64'))
    .update(`${msgId}.${t}.`)
    .update(body)
    .digest('base64');

export const PUBLIC_KEY_PREFIX = 'whpk_';

/**
 * A new Ed25519 key pair: the public key as Standard Webhooks writes it (`whpk_` + base64 of the
 * 32 raw bytes) and the private key as base64 PKCS#8 DER (to be stored encrypted).
 */
export function generateSigningKeyPair(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKey:
      PUBLIC_KEY_PREFIX + Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64'),
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
  };
}

const ed25519Signature = (privateKey: string, msgId: string, t: number, body: string) =>
  sign(
    null,
    Buffer.from(`${msgId}.${t}.${body}`),
    createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' }),
  ).toString('base64');

/**
 * The signature headers of one attempt, signed with every secret in `secrets` (current first);
 * with `ed25519PrivateKey`, `webhook-signature` carries the `v1a` Ed25519 signature instead of `v1`.
 */
export function signatureHeaders(
  secrets: string[],
  msgId: string,
  body: string,
  at: Date = new Date(),
  ed25519PrivateKey?: string,
): Record<string, string> {
  const t = Math.floor(at.getTime() / 1000);
  return {
    'X-Service-Signature': [`t=${t}`, ...secrets.map((s) => `v1=${hmacHex(s, t, body)}`)].join(','),
    'webhook-id': msgId,
    'webhook-timestamp': String(t),
    'webhook-signature': ed25519PrivateKey
      ? `v1a,${ed25519Signature(ed25519PrivateKey, msgId, t, body)}`
      : secrets.map((s) => `v1,${standardSignature(s, msgId, t, body)}`).join(' '),
  };
}

/**
 * Verifies a Standard Webhooks `v1a` (Ed25519) signature as a receiver: `publicKey` is the
 * webhook's `whpk_…`, `rawBody` the body as received. True when a `v1a` value of `signature`
 * verifies over `<id>.<timestamp>.<body>` and the timestamp is within `toleranceSeconds` of now.
 */
export function verifyEd25519WebhookSignature(
  rawBody: string | Buffer,
  headers: { id: string; timestamp: string; signature: string },
  publicKey: string,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
  now: Date = new Date(),
): boolean {
  if (!publicKey.startsWith(PUBLIC_KEY_PREFIX) || !/^\d{1,12}$/.test(headers.timestamp)) return false;
  if (Math.abs(Math.floor(now.getTime() / 1000) - Number(headers.timestamp)) > toleranceSeconds) return false;
  const x = Buffer.from(publicKey.slice(PUBLIC_KEY_PREFIX.length), 'base64').toString('base64url');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  const signed = Buffer.concat([Buffer.from(`${headers.id}.${headers.timestamp}.`), Buffer.from(rawBody)]);
  return headers.signature
    .split(' ')
    .map((v) => v.split(','))
    .some(
      ([version, sig]) => version === 'v1a' && !!sig && verify(null, signed, key, Buffer.from(sig, 'base64')),
    );
}

/** `t` and every `v1` of an `X-Service-Signature` header; undefined when it is malformed. */
export function parseSignatureHeader(header: string): { t: number; v1: string[] } | undefined {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) v1.push(value);
  }
  return t === undefined || v1.length === 0 ? undefined : { t, v1 };
}

/**
 * Verifies a delivery as a receiver: `rawBody` is the request body exactly as received (not
 * re-serialised JSON), `header` the `X-Service-Signature` value, `secret` the webhook's `whsec_…`.
 * True only when some `v1` matches (constant-time comparison) and |now − t| ≤ `toleranceSeconds`,
 * in both directions, so stale and future-dated deliveries are refused.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string | undefined | null,
  secret: string,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
  now: Date = new Date(),
): boolean {
  if (!header || !secret) return false;
  const parsed = parseSignatureHeader(header);
  if (!parsed) return false;
  if (Math.abs(Math.floor(now.getTime() / 1000) - parsed.t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, parsed.t, rawBody), 'hex');
  let match = false;
  for (const candidate of parsed.v1) {
    // every candidate is compared, so timing does not reveal which one matched
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) match = true;
  }
  return match;
}
