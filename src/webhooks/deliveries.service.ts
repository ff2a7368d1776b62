import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { newId } from '../common/ids';
import { Event } from '../events/event.entity';
import { conflict, notFound } from '../http/errors';
import { Delivery, DeliveryAttempt } from './delivery.entity';
import { startDeliveryWorkflow } from './delivery-workflows';
import { Webhook } from './webhook.entity';
import type { ListDeliveriesInput } from './webhooks.schemas';
import { findWebhook } from './webhooks.service';

export function deliveryView(d: Delivery) {
  return {
    id: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    ...(d.statusCode != null ? { statusCode: d.statusCode } : {}),
    ...(d.status === 'delivered' && d.latencyMs != null ? { latencyMs: d.latencyMs } : {}),
    ...(d.deliveredAt ? { deliveredAt: d.deliveredAt.toISOString() } : {}),
    ...(d.status !== 'delivered' && d.error ? { error: d.error } : {}),
    ...(d.lastAttemptAt ? { lastAttemptAt: d.lastAttemptAt.toISOString() } : {}),
    ...(d.status === 'pending' && d.nextAttemptAt ? { nextAttemptAt: d.nextAttemptAt.toISOString() } : {}),
    test: d.test,
    ...(d.replayOf ? { replayOf: d.replayOf } : {}),
    ...(d.recoveryId ? { recoveryId: d.recoveryId } : {}),
    createdAt: d.createdAt.toISOString(),
  };
}

export async function listDeliveries(
  em: EntityManager,
  auth: PlatformAuth,
  webhookId: string,
  query: ListDeliveriesInput,
) {
  await findWebhook(em, auth, webhookId);
  const [items, total] = await em.findAndCount(
    Delivery,
    { webhookId, ...(query.status ? { status: query.status } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: query.limit, offset: query.offset },
  );
  return { data: items.map(deliveryView), total };
}

async function findDelivery(em: EntityManager, auth: PlatformAuth, webhookId: string, deliveryId: string) {
  await findWebhook(em, auth, webhookId);
  const delivery = await em.findOne(Delivery, { id: deliveryId, webhookId });
  if (!delivery) throw notFound('Delivery');
  return delivery;
}

export async function getDelivery(
  em: EntityManager,
  auth: PlatformAuth,
  webhookId: string,
  deliveryId: string,
) {
  const delivery = await findDelivery(em, auth, webhookId, deliveryId);
  const [event, attempts] = await Promise.all([
    em.findOneOrFail(Event, { id: delivery.eventId }),
    em.find(DeliveryAttempt, { deliveryId }, { orderBy: { attempt: 'asc' } }),
  ]);
  return {
    ...deliveryView(delivery),
    event: JSON.parse(event.payload) as Record<string, unknown>,
    attemptLog: attempts.map((a) => ({
      attempt: a.attempt,
      attemptedAt: a.attemptedAt.toISOString(),
      success: a.success,
      statusCode: a.statusCode ?? null,
      latencyMs: a.latencyMs,
      error: a.error ?? null,
      responseBody: a.responseBody ?? null,
    })),
  };
}

/** Starts a just-committed delivery's workflow and records the start; the dispatcher retries it otherwise. */
export async function startDeliveryNow(ctx: AppContext, delivery: Delivery, singleAttempt: boolean) {
  // a listener's (vp listen) goes once, to the process holding its socket
  const listener = await ctx.orm.em
    .fork()
    .findOne(Webhook, { id: delivery.webhookId, kind: 'listener' }, { fields: ['listenerTaskQueue'] });
  const handle = await startDeliveryWorkflow(ctx.temporal, ctx.config, {
    id: delivery.id,
    accountId: delivery.account,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    singleAttempt: singleAttempt || listener !== null,
    listenerTaskQueue: listener?.listenerTaskQueue ?? undefined,
  });
  await ctx.orm.em
    .getConnection()
    .execute(
      'update deliveries set workflow_started_at = now() where id = ? and workflow_started_at is null',
      [delivery.id],
    );
  return handle;
}

/** Replays a finished delivery of the same event (same `evt_` id) as a new delivery with a full schedule. */
export async function retryDelivery(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  webhookId: string,
  deliveryId: string,
) {
  const original = await findDelivery(em, auth, webhookId, deliveryId);
  if (original.status === 'pending')
    throw conflict('The delivery is still pending; it is retried automatically');
  const webhook = await findWebhook(em, auth, webhookId);
  if (!webhook.enabled) throw conflict('The webhook is disabled; enable it before replaying deliveries');
  const replay = em.create(Delivery, {
    id: newId('del'),
    account: auth.accountId,
    environment: auth.environment,
    webhookId,
    eventId: original.eventId,
    eventType: original.eventType,
    replayOf: original.id,
    test: original.test,
  });
  await em.flush();
  await startDeliveryNow(ctx, replay, original.test).catch((error) =>
    ctx.logger.warn({ err: error, deliveryId: replay.id }, 'replay start deferred to the dispatcher'),
  );
  return deliveryView(replay);
}
