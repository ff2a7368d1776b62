import { WebhookVerificationError } from './errors';
import type { webhooks } from './schema';

/**
 * Verifying a webhook delivery with Web Crypto (Node 22+ and browsers alike). The platform signs
 * every delivery twice over the exact body bytes (docs/webhooks.md):
 *  - `X-Service-Signature: t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `<t>.<body>`, keyed with the
 *    UTF-8 bytes of the whole `whsec_…` secret;
 *  - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`):
 *    HMAC-SHA256 of `<id>.<t>.<body>`, keyed with the base64-decoded part after `whsec_`.
 * During a secret rotation each header carries two signatures; either secret verifies.
 */

/** Every event type of the catalogue. */
export type WebhookEventType = keyof webhooks;
/** The event of one type, as delivered: `{ id, type, timestamp, publisherId, data }`. */
export type WebhookEventOf<T extends WebhookEventType> = NonNullable<
  webhooks[T]['post']['requestBody']
>['content']['application/json'];
/** Any event: narrow it on `type`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface UnwrapOptions {
  /** How far the signature's time may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** Now (tests). */
  now?: Date;
}

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const found = Object.keys(record).find((key) => key.toLowerCase() === name);
  const value = found === undefined ? undefined : record[found];
  return Array.isArray(value) ? value[0] : value;
}

const base64ToBytes = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const bytesToBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const bytesToHex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

async function hmac(key: Uint8Array<ArrayBuffer>, parts: (string | Uint8Array)[]): Promise<Uint8Array> {
  const chunks = parts.map((p) => (typeof p === 'string' ? encoder.encode(p) : p));
  const message = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    message.set(chunk, at);
    at += chunk.length;
  }
  const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, message));
}

/** Compares every candidate in full, so timing tells nothing of which one matched. */
function anyEqual(expected: string, candidates: string[]): boolean {
  let match = false;
  for (const candidate of candidates) {
    let difference = candidate.length ^ expected.length;
    for (let i = 0; i < expected.length; i++) {
      difference |= expected.charCodeAt(i) ^ (candidate.charCodeAt(i) || 0);
    }
    if (difference === 0) match = true;
  }
  return match;
}

function checkTime(t: number, options: UnwrapOptions): void {
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!Number.isFinite(t) || Math.abs(now - t) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError(
      'The signature is outside the tolerance window (expired or future-dated)',
    );
  }
}

async function verifyServiceSignature(
  value: string,
  body: Uint8Array,
  secret: string,
  options: UnwrapOptions,
) {
  const fields = value.split(',').map((part) => part.trim().split('='));
  const t = Number(fields.find(([k]) => k === 't')?.[1]);
  const v1 = fields.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  checkTime(t, options);
  const expected = bytesToHex(await hmac(encoder.encode(secret), [`${t}.`, body]));
  if (!anyEqual(expected, v1)) throw new WebhookVerificationError('X-Service-Signature does not match');
}

async function verifyStandardSignature(
  id: string,
  timestamp: string,
  value: string,
  body: Uint8Array,
  secret: string,
  options: UnwrapOptions,
) {
  checkTime(Number(timestamp), options);
  const key = base64ToBytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  const expected = bytesToBase64(await hmac(key, [`${id}.${timestamp}.`, body]));
  const candidates = value.split(' ').map((part) => (part.startsWith('v1,') ? part.slice(3) : ''));
  if (!anyEqual(expected, candidates)) throw new WebhookVerificationError('webhook-signature does not match');
}

/**
 * Verifies a delivery and returns its event. `rawBody` is the body exactly as received (not
 * re-serialised JSON). Every signature scheme present in `headers` must verify, and at least one
 * must be present; otherwise a WebhookVerificationError.
 */
export async function unwrapWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: UnwrapOptions = {},
): Promise<WebhookEvent> {
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const service = header(headers, 'x-service-signature');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const standard = header(headers, 'webhook-signature');
  if (!service && !(id && timestamp && standard)) {
    throw new WebhookVerificationError(
      'No signature: X-Service-Signature or webhook-id/-timestamp/-signature',
    );
  }
  if (service) await verifyServiceSignature(service, body, secret, options);
  if (id && timestamp && standard)
    await verifyStandardSignature(id, timestamp, standard, body, secret, options);
  const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  return JSON.parse(text) as WebhookEvent;
}
