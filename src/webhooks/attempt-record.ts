import type { Knex } from 'knex';
import type { Environment } from '../common/owner';
import type { Config } from '../config/env';
import { eventRecord } from '../events/emit';
import type { DeliveryStatus } from './statuses';

/** The error of a delivery stopped because its webhook was disabled. */
export const WEBHOOK_DISABLED_ERROR = 'Webhook disabled';

/** What one attempt recorded, and what it changes of the webhook. */
export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  attemptedAt: Date;
  success: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** A test delivery never moves the webhook between active, failing and disabled. */
  test: boolean;
}

/** The webhook a delivery goes to, as the attempt loaded it (for `webhook.disabled`). */
export interface AttemptWebhook {
  id: string;
  accountId: string;
  environment: string;
  name: string;
  url: string;
  failingSince: Date | null;
}

/**
 * Records one attempt, in one transaction: the attempt row, the delivery's new state and the
 * webhook's health (`failing` after a delivery's last attempt fails; `failing_since`, the first
 * failed attempt since the last success, cleared by a success), then, after a failed attempt,
 * disables the webhook when due (see disableIfDue). Safe to repeat: an attempt already recorded
 * changes nothing. Answers whether this attempt disabled the webhook.
 */
export async function recordAttempt(
  knex: Knex,
  config: Config,
  webhook: AttemptWebhook,
  r: AttemptRecord,
): Promise<{ disabled: boolean }> {
  const health = r.test
    ? ''
    : r.success
      ? `, hook as (update webhooks set failing = false, failing_since = null
           where id = (select webhook_id from del) and (failing or failing_since is not null))`
      : `, hook as (update webhooks set failing = failing or :final, failing_since = coalesce(failing_since, :at)
           where id = (select webhook_id from del) and (failing_since is null or (:final and not failing)))`;
  return knex.transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: { webhook_id: string }[] }>(
      `with att as (
         insert into delivery_attempts (delivery_id, attempt, attempted_at, success, status_code, latency_ms, error, response_body)
         values (:id, :attempt, :at, :success, :statusCode, :latencyMs, :error, :body)
         on conflict do nothing
       ), del as (
         update deliveries set attempts = :attempt, status = :status, status_code = :statusCode,
           latency_ms = case when :success then :latencyMs else latency_ms end,
           delivered_at = case when :success then :at else delivered_at end,
           error = :error, last_attempt_at = :at, next_attempt_at = :next
         where id = :id and status = 'pending' and attempts < :attempt
         returning webhook_id
       )${health}
       select webhook_id from del`,
      {
        id: r.deliveryId,
        attempt: r.attempt,
        at: r.attemptedAt,
        success: r.success,
        statusCode: r.statusCode,
        latencyMs: r.latencyMs,
        error: r.error,
        body: r.responseBody,
        status: r.status,
        next: r.nextAttemptAt,
        final: r.status === 'failed',
      },
    );
    if (rows.length === 0 || r.test || r.success) return { disabled: false };
    return { disabled: await disableIfDue(trx, config, webhook, r) };
  });
}

/**
 * Disables a webhook whose receiver answered 410 Gone (reason `gone`), or whose attempts have all
 * failed since at least WEBHOOK_DISABLE_AFTER_DAYS and over at least WEBHOOK_DISABLE_MIN_SPAN_HOURS
 * (reason `failing`). In the same statement its pending deliveries stop (`failed`, `Webhook
 * disabled`: their workflows end at their next attempt) and a `webhook.disabled` event is written
 * for the account's other webhooks. Of concurrent attempts only one disables (the row lock, then
 * `enabled` is false), so the event is written once.
 */
async function disableIfDue(
  trx: Knex.Transaction,
  config: Config,
  webhook: AttemptWebhook,
  r: AttemptRecord,
): Promise<boolean> {
  const gone = r.statusCode === 410;
  const dueAfterMs = Math.max(config.webhooks.disableAfterMs, config.webhooks.disableMinSpanMs);
  const reason = gone ? 'gone' : 'failing';
  const event = eventRecord({
    accountId: webhook.accountId,
    environment: webhook.environment as Environment,
    type: 'webhook.disabled',
    personaId: null,
    at: r.attemptedAt,
    data: {
      webhookId: webhook.id,
      name: webhook.name,
      url: webhook.url,
      reason,
      failingSince: (webhook.failingSince ?? r.attemptedAt).toISOString(),
      disabledAt: r.attemptedAt.toISOString(),
    },
  });
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(
    `with off as (
       update webhooks set enabled = false, disabled_at = :at, disabled_reason = :reason, updated_at = :at
       where id = :webhookId and enabled and (:gone or failing_since <= :dueBefore)
       returning id, account_id, environment
     ), stop as (
       update deliveries set status = 'failed', next_attempt_at = null,
         error = case when id = :deliveryId then error else :stopped end
       where webhook_id = :webhookId and status = 'pending' and exists (select 1 from off)
     ), evt as (
       insert into events (id, account_id, environment, type, persona_id, payload, created_at)
       select :eventId, off.account_id, off.environment, 'webhook.disabled', null, :payload, :at from off
       on conflict (id) do nothing
     )
     select id from off`,
    {
      at: r.attemptedAt,
      reason,
      webhookId: webhook.id,
      deliveryId: r.deliveryId,
      gone,
      dueBefore: new Date(r.attemptedAt.getTime() - dueAfterMs),
      stopped: WEBHOOK_DISABLED_ERROR,
      eventId: event.id,
      payload: event.payload,
    },
  );
  return rows.length > 0;
}
