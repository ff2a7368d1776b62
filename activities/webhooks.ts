import { webhookDeliveries } from '../src/telemetry/metrics';
import { annotateSpan } from '../src/telemetry/tracing';
import { type AttemptInput, type AttemptOutcome, attemptDelivery } from '../src/webhooks/attempt';
import {
  queueRecoveryBatch,
  type RecoveryBatchInput,
  type RecoveryBatchResult,
} from '../src/webhooks/recovery-batch';
import type { ActivityDeps } from './deps';
import { heartbeating } from './heartbeating';

export function createWebhookActivities({ orm, encryptor, config }: ActivityDeps) {
  const knex = orm.em.getConnection().getKnex();
  return {
    /**
     * One signed POST of a delivery's event, recorded with its outcome (see src/webhooks/attempt.ts);
     * heartbeating while a slow receiver answers, so an attempt whose worker died is retried within
     * the workflow's heartbeat timeout, not its start-to-close timeout.
     */
    async attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
      annotateSpan({ 'voice.delivery_id': input.deliveryId, 'voice.delivery_attempt': input.attempt });
      const outcome = await heartbeating(() => attemptDelivery({ knex, encryptor, config }, input));
      // delivered; pending = this attempt failed and another follows; failed = the last one did; gone
      webhookDeliveries.inc({ outcome: outcome.status });
      return outcome;
    },

    /** One batch of a recovery: queues deliveries of the next missed events (src/webhooks/recovery-batch.ts). */
    async queueRecoveryBatch(input: RecoveryBatchInput): Promise<RecoveryBatchResult> {
      annotateSpan({ 'voice.recovery_id': input.recoveryId });
      return queueRecoveryBatch(knex, input);
    },
  };
}
