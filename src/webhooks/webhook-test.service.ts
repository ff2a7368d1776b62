import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { newId } from '../common/ids';
import { emitEvent } from '../events/emit';
import { startDeliveryNow } from './deliveries.service';
import { Delivery } from './delivery.entity';
import { findWebhook } from './webhooks.service';

const TEST_PICKUP_GRACE_MS = 10_000;

/**
 * POST /webhooks/:id/test: a `webhook.test` event sent to this webhook only, as a one-attempt
 * delivery workflow (so it is in the logs and the Web UI), answered when the attempt is done.
 */
export async function testWebhook(ctx: AppContext, em: EntityManager, auth: PlatformAuth, id: string) {
  const webhook = await findWebhook(em, auth, id);
  const { event, delivery } = await em.transactional(async (tem) => {
    const { event } = emitEvent(tem, {
      accountId: auth.accountId,
      environment: auth.environment,
      type: 'webhook.test',
      data: { webhookId: webhook.id, message: 'This is a test event from the voice platform' },
      personaId: null,
    });
    event.dispatchedAt = new Date(); // addressed to this webhook only: not fanned out
    await tem.flush(); // the event row first: the delivery references it
    const delivery = tem.create(Delivery, {
      id: newId('del'),
      account: auth.accountId,
      environment: auth.environment,
      webhookId: webhook.id,
      eventId: event.id,
      eventType: 'webhook.test',
      test: true,
    });
    return { event, delivery };
  });
  const handle = await startDeliveryNow(ctx, delivery, true);
  // Bounded: the attempt's own timeout plus time for a worker to pick it up. A test the workers
  // could not run in time answers undelivered and stays visible as its delivery.
  const waitMs = ctx.config.webhooks.timeoutMs + TEST_PICKUP_GRACE_MS;
  const deadline = AbortSignal.timeout(waitMs);
  const result = await ctx.temporal
    .withAbortSignal(deadline, () => handle.result())
    .catch((error: unknown) => {
      if (!deadline.aborted) throw error;
      return {
        status: 'pending',
        statusCode: undefined,
        latencyMs: undefined,
        error: `the test attempt did not finish within ${waitMs} ms; see delivery ${delivery.id}`,
      };
    });
  return {
    delivered: result.status === 'delivered',
    statusCode: result.statusCode ?? null,
    latencyMs: result.latencyMs ?? null,
    testedAt: new Date().toISOString(),
    deliveryId: delivery.id,
    eventId: event.id,
    ...(result.error ? { error: result.error } : {}),
  };
}
