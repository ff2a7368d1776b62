import { generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import {
  TELNYX_SIGNATURE_HEADER,
  TELNYX_TIMESTAMP_HEADER,
  telnyxSignature,
} from '../../../src/telephony/telnyx/signature';
import type { TelnyxCallPayload } from '../../../src/telephony/telnyx/webhook-events';

/** How the double signs a webhook: as Telnyx does, with another key, without headers, or too long ago. */
export type SigningMode = 'valid' | 'wrong' | 'missing' | 'stale';

/** A webhook the double posted, and what the platform answered. */
export interface PostedWebhook {
  url: string;
  eventId: string;
  eventType: string;
  body: string;
  status?: number;
  response?: string;
}

/** An Ed25519 key pair, and its public key as Telnyx's portal shows it (the raw 32 bytes, base64). */
export function telnyxKeyPair(): { privateKey: KeyObject; publicKeyBase64: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return { privateKey, publicKeyBase64: spki.subarray(spki.length - 32).toString('base64') };
}

/**
 * Telnyx's webhook delivery, as its documentation describes it: a POST of JSON
 * `{ data: { record_type: "event", id, event_type, occurred_at, payload }, meta }`, signed with the
 * account's Ed25519 key over `<timestamp>|<body>` (`telnyx-signature-ed25519`, base64;
 * `telnyx-timestamp`, Unix seconds). `signing` makes the next webhooks forged, unsigned or stale.
 */
export class WebhookSender {
  signing: SigningMode = 'valid';
  readonly posted: PostedWebhook[] = [];
  private readonly wrongKey = generateKeyPairSync('ed25519').privateKey;

  constructor(private readonly privateKey: KeyObject) {}

  /** Posts `eventType` about a call to `url`; resolves with the platform's answer. */
  post(url: string, eventType: string, payload: TelnyxCallPayload): Promise<PostedWebhook> {
    const eventId = randomUUID();
    const data = {
      record_type: 'event',
      id: eventId,
      event_type: eventType,
      occurred_at: new Date().toISOString(),
      payload,
    };
    const body = JSON.stringify({ data, meta: { attempt: 1, delivered_to: url } });
    return this.deliver({ url, eventId, eventType, body });
  }

  /** Delivers a webhook again, as Telnyx retries one (same event id and body, signed anew). */
  redeliver(webhook: PostedWebhook): Promise<PostedWebhook> {
    return this.deliver({
      url: webhook.url,
      eventId: webhook.eventId,
      eventType: webhook.eventType,
      body: webhook.body,
    });
  }

  private async deliver(webhook: PostedWebhook): Promise<PostedWebhook> {
    this.posted.push(webhook);
    const stale = this.signing === 'stale' ? 10 * 60 : 0;
    const timestamp = String(Math.floor(Date.now() / 1000) - stale);
    const key = this.signing === 'wrong' ? this.wrongKey : this.privateKey;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.signing !== 'missing') {
      headers[TELNYX_SIGNATURE_HEADER] = telnyxSignature(key, timestamp, webhook.body);
      headers[TELNYX_TIMESTAMP_HEADER] = timestamp;
    }
    try {
      const res = await fetch(webhook.url, { method: 'POST', headers, body: webhook.body });
      webhook.status = res.status;
      webhook.response = await res.text();
    } catch (error) {
      webhook.status = 0;
      webhook.response = String(error);
    }
    return webhook;
  }
}
