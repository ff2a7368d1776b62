import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';

export interface RecoverWebhookEventsInput {
  /** The recovery (`wrc_…`, also this workflow's id); its row holds the window and the cursor. */
  recoveryId: string;
  /** Events looked at per batch (default RECOVERY_BATCH_SIZE). */
  batchSize?: number;
  /** Batches per run before continuing as new (default RECOVERY_BATCHES_PER_RUN). */
  batchesPerRun?: number;
}

export interface RecoverWebhookEventsResult {
  status: 'completed' | 'canceled' | 'gone';
  /** Deliveries queued by the whole recovery. */
  total: number;
}

export const RECOVERY_BATCH_SIZE = 200;
export const RECOVERY_BATCHES_PER_RUN = 100;

/**
 * Re-sends the events a webhook missed (docs/webhooks.md "Recovering missed events"): one
 * `queueRecoveryBatch` activity per batch pages through PostgreSQL from the cursor kept on the
 * recovery's row and queues one delivery per missed event (the dispatcher starts their
 * `deliverWebhookWorkflow`s). The cursor lives in the database, so a retried batch repeats nothing
 * and a run continues as new with only the recovery id.
 */
export async function recoverWebhookEventsWorkflow(
  input: RecoverWebhookEventsInput,
): Promise<RecoverWebhookEventsResult> {
  const { queueRecoveryBatch } = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const batchesPerRun = input.batchesPerRun ?? RECOVERY_BATCHES_PER_RUN;
  for (let batch = 0; batch < batchesPerRun; batch++) {
    const result = await queueRecoveryBatch({
      recoveryId: input.recoveryId,
      batchSize: input.batchSize ?? RECOVERY_BATCH_SIZE,
    });
    if (result.status !== 'running') return { status: result.status, total: result.total };
    if (workflowInfo().continueAsNewSuggested) break;
  }
  return continueAsNew<typeof recoverWebhookEventsWorkflow>(input);
}
