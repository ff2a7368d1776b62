import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import { getDelivery, listDeliveries, retryDelivery } from './deliveries.service';
import { getRecovery, recoverWebhook } from './recoveries.service';
import { RecoverWebhookBody, RecoveryParams, WebhookRecoveryEnvelope } from './recovery.schemas';
import { testWebhook } from './webhook-test.service';
import {
  CreateWebhookBody,
  DeletedWebhook,
  DeliveryEnvelope,
  DeliveryList,
  DeliveryLogEnvelope,
  DeliveryParams,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RotatedSecretEnvelope,
  UpdateWebhookBody,
  WebhookCreatedEnvelope,
  WebhookEnvelope,
  WebhookIdParams,
  WebhookList,
  WebhookTestEnvelope,
  WebhookUpdatedEnvelope,
} from './webhooks.schemas';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from './webhooks.service';

export function mountWebhookRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/webhooks',
      idempotent: true,
      summary: 'Create a webhook',
      description:
        'The signing secret (`whsec_…`) is in this response only. Plan limits: 5 (free), 50 (pro), unlimited (enterprise) per environment.',
      scope: 'webhooks:write',
      body: CreateWebhookBody,
      success: { status: 201, description: 'The webhook, with its secret', schema: WebhookCreatedEnvelope },
      handler: async ({ auth, body }) => ok(await createWebhook(ctx, em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/webhooks',
      summary: 'List webhooks',
      scope: 'webhooks:read',
      query: ListWebhooksQuery,
      success: { description: 'Webhooks, newest first', schema: WebhookList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listWebhooks(ctx, em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/webhooks/:id',
      summary: 'Get a webhook with its delivery statistics',
      scope: 'webhooks:read',
      params: WebhookIdParams,
      success: { description: 'The webhook (no secret)', schema: WebhookEnvelope },
      handler: async ({ auth, params }) => ok(await getWebhook(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'put',
      path: '/webhooks/:id',
      summary: 'Update a webhook',
      description:
        '`enabled: false` disables it and stops its pending deliveries (they end as failed); `enabled: true` re-enables a disabled one (also one disabled automatically).',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      body: UpdateWebhookBody,
      success: {
        status: 200,
        description: 'The id, the changed fields and updatedAt',
        schema: WebhookUpdatedEnvelope,
      },
      handler: async ({ auth, params, body }) => ok(await updateWebhook(ctx, em(), auth, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/webhooks/:id',
      summary: 'Delete a webhook',
      description: 'Its pending deliveries stop; its delivery logs are deleted with it.',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      success: { description: 'Deleted', schema: DeletedWebhook },
      handler: async ({ auth, params }) => ok(await deleteWebhook(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/webhooks/:id/test',
      summary: 'Send a signed webhook.test event now',
      description: 'One attempt, answered when it is done; it appears in the logs (`test: true`).',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      success: { status: 200, description: 'The attempt', schema: WebhookTestEnvelope },
      handler: async ({ auth, params }) => ok(await testWebhook(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/webhooks/:id/rotate-secret',
      summary: 'Rotate the signing secret',
      description:
        'Returns the new secret once. For 24 hours deliveries carry signatures by both the new and the previous secret.',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      success: { status: 200, description: 'The new secret', schema: RotatedSecretEnvelope },
      handler: async ({ auth, params }) => ok(await rotateWebhookSecret(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'get',
      path: '/webhooks/:id/logs',
      summary: 'List deliveries',
      scope: 'webhooks:read',
      params: WebhookIdParams,
      query: ListDeliveriesQuery,
      success: { description: 'Delivery log entries, newest first', schema: DeliveryList },
      handler: async ({ auth, params, query }) => {
        const { data, total } = await listDeliveries(em(), auth, params.id, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/webhooks/:id/logs/:deliveryId',
      summary: 'Get a delivery with every attempt and the event as sent',
      scope: 'webhooks:read',
      params: DeliveryParams,
      success: { description: 'The delivery', schema: DeliveryEnvelope },
      handler: async ({ auth, params }) => ok(await getDelivery(em(), auth, params.id, params.deliveryId)),
    })
    .route({
      method: 'post',
      path: '/webhooks/:id/logs/:deliveryId/retry',
      summary: 'Replay a delivery',
      description:
        'Sends the same event (same `evt_` id and bytes) again as a new delivery with the full retry schedule.',
      scope: 'webhooks:write',
      params: DeliveryParams,
      success: { status: 201, description: 'The new delivery', schema: DeliveryLogEnvelope },
      handler: async ({ auth, params }) =>
        ok(await retryDelivery(ctx, em(), auth, params.id, params.deliveryId)),
    })
    .route({
      method: 'post',
      path: '/webhooks/:id/recover',
      summary: 'Re-send the events a webhook missed',
      description:
        'Queues, once each and with their original `evt_` ids, the events of `[since, until]` the webhook subscribes to and did not get; `since` within WEBHOOK_RECOVERY_WINDOW_DAYS (14). Only an enabled webhook, one recovery at a time (409).',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      body: RecoverWebhookBody,
      success: { status: 202, description: 'The recovery, under way', schema: WebhookRecoveryEnvelope },
      handler: async ({ auth, params, body }) => ok(await recoverWebhook(ctx, em(), auth, params.id, body)),
    })
    .route({
      method: 'get',
      path: '/webhooks/:id/recoveries/:recoveryId',
      summary: 'Get a recovery with its progress',
      scope: 'webhooks:read',
      params: RecoveryParams,
      success: { description: 'The recovery', schema: WebhookRecoveryEnvelope },
      handler: async ({ auth, params }) => ok(await getRecovery(em(), auth, params.id, params.recoveryId)),
    });
}
