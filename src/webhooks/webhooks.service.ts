import { type EntityManager, raw } from '@mikro-orm/postgresql';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { enforcePlanLimit, findOwned, listOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import type { Config, Plan } from '../config/env';
import { notFound, validationFailed } from '../http/errors';
import { urlProblems } from '../outbound/http';
import { Persona } from '../personas';
import { WEBHOOK_DISABLED_ERROR } from './attempt-record';
import { Delivery } from './delivery.entity';
import { cancelDeliveryWorkflows } from './delivery-workflows';
import { generateSigningKeyPair, generateWebhookSecret } from './signature';
import {
  Webhook,
  webhookPreviousSecretAad,
  webhookSecretAad,
  webhookSigningKeyAad,
  webhookStatus,
} from './webhook.entity';
import type { CreateWebhookInput, ListWebhooksInput, UpdateWebhookInput } from './webhooks.schemas';

/** Webhooks per account and environment (docs/api-contract.md "Plan limits"); enterprise is unlimited. */
export const WEBHOOK_LIMITS: Record<Plan, number | null> = { free: 5, pro: 50, enterprise: null };
/** After a rotation the previous secret keeps signing this long. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/**
 * When a failing webhook will be disabled if no attempt succeeds before: its first failure since
 * the last success plus the longer of WEBHOOK_DISABLE_AFTER_DAYS and WEBHOOK_DISABLE_MIN_SPAN_HOURS
 * (it is disabled at the first failed attempt from then on). Null unless enabled and failing.
 */
function disablesAt(w: Webhook, config: Config): string | null {
  if (!w.enabled || !w.failingSince) return null;
  const dueAfterMs = Math.max(config.webhooks.disableAfterMs, config.webhooks.disableMinSpanMs);
  return new Date(new Date(w.failingSince).getTime() + dueAfterMs).toISOString();
}

function summary(w: Webhook, config: Config, lastDeliveredAt: Date | string | null = null) {
  return {
    id: w.id,
    kind: w.kind,
    name: w.name,
    url: w.url,
    events: w.events,
    enabled: w.enabled,
    personaId: w.personaId ?? null,
    includeTestRuns: w.includeTestRuns,
    status: webhookStatus(w),
    disabledAt: iso(w.disabledAt),
    disabledReason: w.disabledReason ?? null,
    failingSince: iso(w.failingSince),
    disablesAt: disablesAt(w, config),
    signing: { algorithm: w.signingAlgorithm, publicKey: w.signingPublicKey ?? null },
    lastDeliveredAt: iso(lastDeliveredAt),
    createdAt: w.createdAt.toISOString(),
  };
}

function checkUrl(ctx: AppContext, url: string): void {
  const problems = urlProblems(ctx.config.outbound, { url });
  if (problems.length) throw validationFailed(problems);
}

/**
 * When each webhook last had a delivery succeed: read from the deliveries (one index probe per
 * webhook), so deliveries never contend on the webhook's row to keep a copy up to date.
 */
async function lastDeliveries(em: EntityManager, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await em
    .getConnection()
    .getKnex()
    .raw<{ rows: { id: string; delivered_at: string }[] }>(
      `select w.id, d.delivered_at from unnest(?::text[]) as w(id)
     cross join lateral (select delivered_at from deliveries
       where webhook_id = w.id and delivered_at is not null order by delivered_at desc limit 1) d`,
      [ids],
    );
  return new Map(rows.map((r) => [r.id, r.delivered_at]));
}

export const findWebhook = (em: EntityManager, owner: Owner, id: string, opts: { lock?: boolean } = {}) =>
  findOwned(em, Webhook, owner, id, 'Webhook', opts);

/** A persona filter must name one of the caller's personas: another account's is a 404, as anywhere. */
async function checkPersona(em: EntityManager, auth: PlatformAuth, personaId: string | null | undefined) {
  if (!personaId) return;
  if ((await em.count(Persona, { id: personaId, account: auth.accountId })) === 0) throw notFound('Persona');
}

export async function createWebhook(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  input: CreateWebhookInput,
) {
  checkUrl(ctx, input.url);
  await checkPersona(em, auth, input.personaId);
  const secret = generateWebhookSecret();
  const webhook = await em.transactional(async (tem) => {
    await enforcePlanLimit(tem, Webhook, auth, WEBHOOK_LIMITS[auth.plan], 'webhooks');
    const w = tem.create(Webhook, {
      account: auth.accountId,
      environment: auth.environment,
      name: input.name,
      url: input.url,
      events: input.events,
      enabled: input.enabled ?? true,
      personaId: input.personaId ?? null,
      includeTestRuns: input.includeTestRuns ?? false,
      secretCiphertext: '',
      disabledAt: input.enabled === false ? new Date() : null,
      disabledReason: input.enabled === false ? 'manual' : null,
    });
    w.secretCiphertext = ctx.encryptor.encrypt(
      secret,
      webhookSecretAad(w.id, auth.accountId, auth.environment),
    );
    if (input.signing?.algorithm === 'ed25519') {
      const keys = generateSigningKeyPair();
      w.signingAlgorithm = 'ed25519';
      w.signingPublicKey = keys.publicKey;
      w.signingKeyCiphertext = ctx.encryptor.encrypt(
        keys.privateKey,
        webhookSigningKeyAad(w.id, auth.accountId, auth.environment),
      );
    }
    return w;
  });
  return { ...summary(webhook, ctx.config), secret, updatedAt: webhook.updatedAt.toISOString() };
}

export async function listWebhooks(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  query: ListWebhooksInput,
) {
  const where: Record<string, unknown> = {};
  if (query.status === 'disabled') where.enabled = false;
  if (query.status === 'active') Object.assign(where, { enabled: true, failing: false });
  if (query.status === 'failing') Object.assign(where, { enabled: true, failing: true });
  const { items, total } = await listOwned(em, Webhook, auth, query, where);
  const last = await lastDeliveries(
    em,
    items.map((w) => w.id),
  );
  return { data: items.map((w) => summary(w, ctx.config, last.get(w.id) ?? null)), total };
}

export async function getWebhook(ctx: AppContext, em: EntityManager, auth: PlatformAuth, id: string) {
  const webhook = await findWebhook(em, auth, id);
  const [stats] = await em
    .createQueryBuilder(Delivery, 'd')
    .select([
      raw('count(*)::int as total'),
      raw(`count(*) filter (where status = 'delivered')::int as successful`),
      raw(`count(*) filter (where status = 'failed')::int as failed`),
      raw(`count(*) filter (where status = 'pending')::int as pending`),
      raw(`coalesce(avg(latency_ms) filter (where status = 'delivered'), 0)::float8 as average_latency_ms`),
    ])
    .where({ webhookId: webhook.id })
    .execute<
      { total: number; successful: number; failed: number; pending: number; average_latency_ms: number }[]
    >('all', false);
  const last = await lastDeliveries(em, [webhook.id]);
  return {
    ...summary(webhook, ctx.config, last.get(webhook.id) ?? null),
    updatedAt: webhook.updatedAt.toISOString(),
    deliveryStats: {
      total: stats.total,
      successful: stats.successful,
      failed: stats.failed,
      pending: stats.pending,
      averageLatencyMs: Math.round(stats.average_latency_ms * 100) / 100,
    },
  };
}

/** Marks a webhook's pending deliveries failed (their workflows are cancelled after commit). */
async function failPendingDeliveries(
  em: EntityManager,
  webhookId: string,
  reason: string,
): Promise<string[]> {
  const rows = await em
    .getConnection()
    .execute<{ id: string }[]>(
      `update deliveries set status = 'failed', error = ?, next_attempt_at = null where webhook_id = ? and status = 'pending' returning id`,
      [reason, webhookId],
      'all',
      em.getTransactionContext(),
    );
  return rows.map((r) => r.id);
}

/**
 * After commit: cancels the workflows of the deliveries just marked failed. One that cannot be
 * cancelled now (Temporal unreachable) finds its delivery failed at its next attempt and does not
 * send, so the failure is only logged.
 */
async function stopDeliveryWorkflows(ctx: AppContext, ids: string[]): Promise<void> {
  await cancelDeliveryWorkflows(ctx.temporal, ids).catch((error: unknown) =>
    ctx.logger.warn(
      { err: error, deliveries: ids.length },
      'could not cancel delivery workflows; their next attempt finds the delivery failed and does not send',
    ),
  );
}

/**
 * Disabling by PUT records when (reason `manual`); enabling again clears that and the failure
 * count-down, so an endpoint re-enabled after being disabled starts afresh.
 */
function noteEnabledChange(w: Webhook, wasEnabled: boolean): void {
  if (wasEnabled === w.enabled) return;
  w.disabledAt = w.enabled ? null : w.updatedAt;
  w.disabledReason = w.enabled ? null : 'manual';
  if (w.enabled) w.failingSince = null;
}

export async function updateWebhook(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  id: string,
  changes: UpdateWebhookInput,
) {
  if (changes.url !== undefined) checkUrl(ctx, changes.url);
  await checkPersona(em, auth, changes.personaId);
  const { webhook, stopped } = await em.transactional(async (tem) => {
    const w = await findWebhook(tem, auth, id);
    const wasEnabled = w.enabled;
    tem.assign(w, changes);
    w.updatedAt = new Date();
    noteEnabledChange(w, wasEnabled);
    const stoppedIds =
      wasEnabled && changes.enabled === false
        ? await failPendingDeliveries(tem, w.id, WEBHOOK_DISABLED_ERROR)
        : [];
    return { webhook: w, stopped: stoppedIds };
  });
  await stopDeliveryWorkflows(ctx, stopped);
  return { id: webhook.id, ...changes, updatedAt: webhook.updatedAt.toISOString() };
}

export async function deleteWebhook(ctx: AppContext, em: EntityManager, auth: PlatformAuth, id: string) {
  const stopped = await em.transactional(async (tem) => {
    // locked: of concurrent deletes one deletes it, the others then find nothing (404)
    const w = await findWebhook(tem, auth, id, { lock: true });
    const ids = await failPendingDeliveries(tem, w.id, 'Webhook deleted');
    tem.remove(w);
    return ids;
  });
  await stopDeliveryWorkflows(ctx, stopped);
  return { deleted: true as const, id };
}

export async function rotateWebhookSecret(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  id: string,
) {
  const secret = generateWebhookSecret();
  const webhook = await em.transactional(async (tem) => {
    // locked: concurrent rotations queue, so each answers the secret that its commit made live
    const w = await findWebhook(tem, auth, id, { lock: true });
    const aad = webhookSecretAad(w.id, auth.accountId, auth.environment);
    const current = ctx.encryptor.decrypt(w.secretCiphertext, aad);
    const previousAad = webhookPreviousSecretAad(w.id, auth.accountId, auth.environment);
    w.previousSecretCiphertext = ctx.encryptor.encrypt(current, previousAad);
    w.previousSecretExpiresAt = new Date(Date.now() + PREVIOUS_SECRET_TTL_MS);
    w.secretCiphertext = ctx.encryptor.encrypt(secret, aad);
    w.updatedAt = new Date();
    return w;
  });
  return { id: webhook.id, secret, previousSecretExpiresAt: webhook.previousSecretExpiresAt!.toISOString() };
}
