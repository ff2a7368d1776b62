import type { Knex } from 'knex';
import type { Config } from '../config/env';
import type { Encryptor } from '../crypto/encryption';
import { ANSWER_LIMITS } from '../outbound/answer-limits';
import { OutboundError, sendOutbound } from '../outbound/http';
import { recordAttempt, WEBHOOK_DISABLED_ERROR } from './attempt-record';
import { type ForwardResult, LISTENER_NOT_CONNECTED, type WebhookListeners } from './listeners';
import { signatureHeaders } from './signature';
import type { DeliveryStatus } from './statuses';
import { webhookPreviousSecretAad, webhookSecretAad, webhookSigningKeyAad } from './webhook.entity';

export const USER_AGENT = 'VoicePlatform-Webhooks/1.0';
/**
 * How much of a receiver's answer is kept in the attempt log. Its status is what counts; the answer
 * is read up to ANSWER_LIMITS.webhookReceiver, and one past that fails the attempt.
 */
export const RESPONSE_BODY_LIMIT = 4096;

export interface AttemptInput {
  deliveryId: string;
  /** 1-based attempt number. */
  attempt: number;
  /** The last attempt: a failure makes the delivery `failed`. */
  final: boolean;
  /** Seconds until the next attempt when this one fails (for `nextAttemptAt`). */
  nextDelaySeconds?: number;
}

export interface AttemptOutcome {
  /**
   * `pending`: this attempt failed and another follows; `gone`: the delivery no longer exists;
   * `endpoint_disabled`: its webhook is disabled (now or by this attempt), so no attempt follows.
   */
  status: DeliveryStatus | 'gone' | 'endpoint_disabled';
  statusCode?: number;
  latencyMs?: number;
  error?: string;
}

interface DeliveryRow {
  status: DeliveryStatus;
  attempts: number;
  test: boolean;
  event_id: string;
  event_type: string;
  payload: string;
  webhook_id: string;
  account_id: string;
  environment: string;
  name: string;
  url: string;
  kind: string;
  enabled: boolean;
  failing_since: Date | null;
  signing_algorithm: string;
  signing_key_ciphertext: string | null;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
}

const LOAD = `
select d.status, d.attempts, d.test, d.event_id, d.event_type, d.status_code, d.latency_ms, d.error,
       e.payload, w.id as webhook_id, w.account_id, w.environment, w.name, w.url, w.kind, w.enabled,
       w.failing_since, w.signing_algorithm, w.signing_key_ciphertext, w.secret_ciphertext, w.previous_secret_ciphertext, w.previous_secret_expires_at
from deliveries d
join events e on e.id = d.event_id
join webhooks w on w.id = d.webhook_id
where d.id = ?`;

/** The webhook's secret, and its previous one while that has not expired (a rotation signs with both). */
function signingSecrets(encryptor: Encryptor, row: DeliveryRow): string[] {
  const owner = [row.webhook_id, row.account_id, row.environment] as const;
  const secrets = [encryptor.decrypt(row.secret_ciphertext, webhookSecretAad(...owner))];
  if (
    row.previous_secret_ciphertext &&
    row.previous_secret_expires_at &&
    new Date(row.previous_secret_expires_at).getTime() > Date.now()
  ) {
    secrets.push(encryptor.decrypt(row.previous_secret_ciphertext, webhookPreviousSecretAad(...owner)));
  }
  return secrets;
}

/** An Ed25519 webhook's private signing key (decrypted), else undefined (HMAC `v1`). */
function signingKey(encryptor: Encryptor, row: DeliveryRow): string | undefined {
  if (row.signing_algorithm !== 'ed25519' || !row.signing_key_ciphertext) return undefined;
  return encryptor.decrypt(
    row.signing_key_ciphertext,
    webhookSigningKeyAad(row.webhook_id, row.account_id, row.environment),
  );
}

/** How one attempt went: the receiver's status and answer, how long it took, and what was wrong with it. */
type SendResult = ForwardResult;

/** The envelope's headers: content type, the event and delivery, and the signatures. */
function envelopeHeaders(
  row: DeliveryRow,
  input: AttemptInput,
  keys: { secrets: string[]; ed25519?: string },
  attemptedAt: Date,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Service-Event-Id': row.event_id,
    'X-Service-Event-Type': row.event_type,
    'X-Service-Delivery-Id': input.deliveryId,
    'X-Service-Delivery-Attempt': String(input.attempt),
    ...signatureHeaders(keys.secrets, row.event_id, row.payload, attemptedAt, keys.ed25519),
  };
}

/**
 * POSTs the stored envelope bytes, signed, through the SSRF guard. An answer outside 2xx (redirects
 * are not followed) and a refused, timed-out or failed connection are errors; anything else throws.
 */
async function postEnvelope(
  config: Config,
  row: DeliveryRow,
  headers: Record<string, string>,
): Promise<SendResult> {
  try {
    const response = await sendOutbound({
      url: row.url,
      method: 'POST',
      headers,
      body: row.payload,
      limits: { ...ANSWER_LIMITS.webhookReceiver, timeoutMs: config.webhooks.timeoutMs },
      policy: config.outbound,
    });
    const statusCode = response.status;
    let error: string | undefined;
    if (statusCode < 200 || statusCode >= 300) {
      error =
        statusCode >= 300 && statusCode < 400
          ? `Receiver answered ${statusCode} (redirects are not followed)`
          : `Receiver answered ${statusCode}`;
    }
    const responseBody = response.body.slice(0, RESPONSE_BODY_LIMIT);
    return { statusCode, latencyMs: response.latencyMs, error, responseBody };
  } catch (failure) {
    if (!(failure instanceof OutboundError)) throw failure;
    const error =
      failure.kind === 'blocked'
        ? `Refused: ${failure.message}`
        : failure.kind === 'timeout'
          ? `Timed out: ${failure.message}`
          : failure.kind === 'too_large'
            ? `Response too large: the receiver answered more than ${ANSWER_LIMITS.webhookReceiver.maxBytes} bytes`
            : `Connection failed: ${failure.message}`;
    return { latencyMs: failure.latencyMs, error };
  }
}

/**
 * Sends the signed envelope: POSTed to an endpoint's URL, or, for the account's listener, down the
 * `vp listen` socket this process holds (listeners.ts), which POSTs it to the developer's local URL.
 */
async function sendEnvelope(
  deps: AttemptDeps,
  row: DeliveryRow,
  input: AttemptInput,
  headers: Record<string, string>,
): Promise<SendResult> {
  if (row.kind !== 'listener') return postEnvelope(deps.config, row, headers);
  const delivery = {
    type: 'delivery' as const,
    deliveryId: input.deliveryId,
    attempt: input.attempt,
    eventId: row.event_id,
    eventType: row.event_type,
    headers,
    body: row.payload,
  };
  if (!deps.listeners) return { latencyMs: 0, error: LISTENER_NOT_CONNECTED };
  return deps.listeners.forward(row.webhook_id, delivery, deps.config.webhooks.timeoutMs);
}

/** What an attempt runs with; `listeners`, where this process holds `vp listen` sockets. */
export interface AttemptDeps {
  knex: Knex;
  encryptor: Encryptor;
  config: Config;
  listeners?: WebhookListeners;
}

/**
 * One delivery attempt: load the delivery with its event and webhook (one query), sign the stored
 * envelope bytes (HMAC `v1`, or Ed25519 `v1a`), POST them through the SSRF guard, then record the
 * attempt, the delivery's new state and the webhook's health in one transaction, disabling the
 * webhook when due (attempt-record.ts). Safe to retry: an attempt already recorded is not sent
 * again, and a delivery that is no longer pending (disabled, deleted) is not sent at all; one whose
 * webhook is disabled answers `endpoint_disabled`, so its workflow ends.
 */
export async function attemptDelivery(deps: AttemptDeps, input: AttemptInput): Promise<AttemptOutcome> {
  const { knex, encryptor, config } = deps;
  const { rows } = await knex.raw<{ rows: DeliveryRow[] }>(LOAD, [input.deliveryId]);
  const row = rows[0];
  if (!row) return { status: 'gone' };
  if (row.status !== 'pending' || row.attempts >= input.attempt) {
    // stopped when its webhook was disabled (docs/webhooks.md "Disabling")
    const stopped = row.status === 'failed' && row.error === WEBHOOK_DISABLED_ERROR && !row.enabled;
    return {
      status: stopped ? 'endpoint_disabled' : row.status,
      statusCode: row.status_code ?? undefined,
      latencyMs: row.latency_ms ?? undefined,
      error: row.error ?? undefined,
    };
  }
  if (!row.enabled) {
    await knex.raw(
      `update deliveries set status = 'failed', error = ?, next_attempt_at = null where id = ? and status = 'pending'`,
      [WEBHOOK_DISABLED_ERROR, input.deliveryId],
    );
    return { status: 'endpoint_disabled', error: WEBHOOK_DISABLED_ERROR };
  }

  const keys = { secrets: signingSecrets(encryptor, row), ed25519: signingKey(encryptor, row) };
  const attemptedAt = new Date();
  const sent = await sendEnvelope(deps, row, input, envelopeHeaders(row, input, keys, attemptedAt));
  const { statusCode, latencyMs, error } = sent;
  const success = error === undefined;
  const status: DeliveryStatus = success ? 'delivered' : input.final ? 'failed' : 'pending';
  const nextAttemptAt =
    status === 'pending' && input.nextDelaySeconds !== undefined
      ? new Date(attemptedAt.getTime() + latencyMs + input.nextDelaySeconds * 1000)
      : null;
  const webhook = {
    id: row.webhook_id,
    accountId: row.account_id,
    environment: row.environment,
    name: row.name,
    url: row.url,
    failingSince: row.failing_since ? new Date(row.failing_since) : null,
  };
  const { disabled } = await recordAttempt(knex, config, webhook, {
    deliveryId: input.deliveryId,
    attempt: input.attempt,
    attemptedAt,
    success,
    statusCode: statusCode ?? null,
    latencyMs,
    error: error ?? null,
    responseBody: sent.responseBody ?? null,
    status,
    nextAttemptAt,
    // a listener's attempts say how the developer's local server answered: not the webhook's health
    test: row.test || row.kind === 'listener',
  });
  return { status: disabled ? 'endpoint_disabled' : status, statusCode, latencyMs, error };
}
