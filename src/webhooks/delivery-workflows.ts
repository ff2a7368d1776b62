import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { deliverWebhookWorkflow } from '../../workflows/deliver-webhook';
import type { recoverWebhookEventsWorkflow } from '../../workflows/recover-webhook-events';
import type { Config } from '../config/env';
import { AccountIdKey, EventTypeKey, WebhookIdKey } from '../temporal/search-attributes';

export interface DeliveryToStart {
  id: string;
  accountId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  /** One attempt only (POST /webhooks/:id/test, and a listener's: nothing waits for a listener). */
  singleAttempt?: boolean;
  /** A listener's delivery: the task queue of the API process holding its `vp listen` socket. */
  listenerTaskQueue?: string;
}

/**
 * Starts a delivery's workflow with the delivery id as workflow id, so a repeated start (a
 * dispatcher that crashed before recording the start) is harmless. Search attributes let operators
 * filter the Web UI by account, webhook and event type.
 */
export async function startDeliveryWorkflow(temporal: Client, config: Config, d: DeliveryToStart) {
  try {
    return await temporal.workflow.start<typeof deliverWebhookWorkflow>('deliverWebhookWorkflow', {
      workflowId: d.id,
      taskQueue: config.temporal.taskQueues.deliveries,
      args: [
        {
          deliveryId: d.id,
          retryDelaysSeconds: d.singleAttempt ? [0] : config.webhooks.retryDelaysSeconds,
          attemptTimeoutMs: config.webhooks.timeoutMs,
          ...(d.listenerTaskQueue ? { listenerTaskQueue: d.listenerTaskQueue } : {}),
        },
      ],
      typedSearchAttributes: [
        { key: AccountIdKey, value: d.accountId },
        { key: WebhookIdKey, value: d.webhookId },
        { key: EventTypeKey, value: d.eventType },
      ],
      memo: { eventId: d.eventId },
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      return temporal.workflow.getHandle<typeof deliverWebhookWorkflow>(d.id);
    }
    throw error;
  }
}

/**
 * Starts a recovery's workflow (workflow id = the `wrc_…` id; a repeated start is harmless) on the
 * deliveries queue, where the delivery workflows it feeds run.
 */
export async function startRecoveryWorkflow(
  temporal: Client,
  config: Config,
  r: { id: string; accountId: string; webhookId: string },
) {
  try {
    return await temporal.workflow.start<typeof recoverWebhookEventsWorkflow>(
      'recoverWebhookEventsWorkflow',
      {
        workflowId: r.id,
        taskQueue: config.temporal.taskQueues.deliveries,
        args: [{ recoveryId: r.id }],
        typedSearchAttributes: [
          { key: AccountIdKey, value: r.accountId },
          { key: WebhookIdKey, value: r.webhookId },
        ],
      },
    );
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      return temporal.workflow.getHandle<typeof recoverWebhookEventsWorkflow>(r.id);
    }
    throw error;
  }
}

/**
 * Stops pending deliveries' workflows (webhook disabled or deleted). A workflow that already closed
 * (not found) is fine; any other failure is thrown once every cancellation was tried.
 */
export async function cancelDeliveryWorkflows(temporal: Client, ids: string[]): Promise<void> {
  const results = await Promise.allSettled(ids.map((id) => temporal.workflow.getHandle(id).cancel()));
  const failure = results.find(
    (r): r is PromiseRejectedResult =>
      r.status === 'rejected' && !(r.reason instanceof WorkflowNotFoundError),
  );
  if (failure) throw failure.reason;
}
