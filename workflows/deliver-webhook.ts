import { isCancellation, log, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AttemptOutcome } from '../src/webhooks/attempt';

export interface DeliverWebhookInput {
  deliveryId: string;
  /** Delay before each attempt, in seconds (WEBHOOK_RETRY_DELAYS when the delivery started). */
  retryDelaysSeconds: number[];
  /** WEBHOOK_TIMEOUT_MS: bounds each attempt's activity. */
  attemptTimeoutMs: number;
  /**
   * A listener's delivery (`vp listen`): the task queue of the API process holding its socket,
   * where its one attempt runs; if no process serves it within seconds (the CLI went away with its
   * process), the attempt runs here and records the listener as not connected.
   */
  listenerTaskQueue?: string;
}

/** How long a listener's attempt may wait for the process holding its socket to take it. */
const LISTENER_PICKUP_TIMEOUT = '5 seconds';

export type DeliverWebhookResult = AttemptOutcome & { attempts: number };

/**
 * One webhook delivery (workflow id = the `del_…` id): attempt, and after a failure wait the next
 * delay as a durable timer, up to the number of delays (5 by default). Each attempt is one activity
 * that records itself; the activity is retried only for infrastructure errors (database down), never
 * for a receiver's answer. Cancelling the workflow (webhook disabled or deleted) ends it quietly.
 */
export async function deliverWebhookWorkflow(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
  const { attemptDelivery } = proxyActivities<Activities>({
    startToCloseTimeout: input.attemptTimeoutMs + 15_000,
    // the attempt heartbeats every 2 s while a slow receiver answers: a dead worker's attempt is
    // retried after this, not after the start-to-close timeout
    heartbeatTimeout: '6 seconds',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: 20,
    },
  });
  if (input.listenerTaskQueue) {
    const { attemptDelivery: attemptOnListener } = proxyActivities<Activities>({
      taskQueue: input.listenerTaskQueue,
      scheduleToStartTimeout: LISTENER_PICKUP_TIMEOUT,
      startToCloseTimeout: input.attemptTimeoutMs + 5_000,
      retry: { maximumAttempts: 1 },
    });
    const attempt = { deliveryId: input.deliveryId, attempt: 1, final: true };
    const outcome = await attemptOnListener(attempt).catch((error: unknown) => {
      if (isCancellation(error)) throw error;
      return attemptDelivery(attempt); // records the listener as gone (or what its process recorded)
    });
    return { ...outcome, attempts: 1 };
  }
  const delays = input.retryDelaysSeconds;
  let outcome: AttemptOutcome = { status: 'pending' };
  let attempt = 0;
  try {
    for (attempt = 1; attempt <= delays.length; attempt++) {
      if (delays[attempt - 1] > 0) await sleep(delays[attempt - 1] * 1000);
      outcome = await attemptDelivery({
        deliveryId: input.deliveryId,
        attempt,
        final: attempt === delays.length,
        nextDelaySeconds: delays[attempt],
      });
      if (outcome.status !== 'pending') break;
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    log.info('delivery cancelled', { deliveryId: input.deliveryId });
    return { status: 'failed', error: 'Cancelled', attempts: attempt };
  }
  return { ...outcome, attempts: Math.min(attempt, delays.length) };
}
