import { type AttemptInput, type AttemptOutcome, attemptDelivery } from '../src/webhooks/attempt';
import type { ActivityDeps } from './deps';

export function createWebhookActivities({ orm, encryptor, config }: ActivityDeps) {
  const knex = orm.em.getConnection().getKnex();
  return {
    /** One signed POST of a delivery's event, recorded with its outcome (see src/webhooks/attempt.ts). */
    async attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
      return attemptDelivery({ knex, encryptor, config }, input);
    },
  };
}
