import type { Knex } from 'knex';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { sampleEventData } from '../events/catalog';
import { emitEvent } from '../events/emit';
import type { ApiRoot } from '../http/api-router';
import { ok } from '../http/envelope';
import { forbidden } from '../http/errors';
import { TriggerEventBody, TriggeredEvent } from './events.schemas';
import { matchingWebhooks } from './outbox';

export function mountEventRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  platform.route({
    method: 'post',
    path: '/events/trigger',
    idempotent: true,
    summary: 'Sandbox: emit a sample event to your webhooks',
    description:
      'For `pk_test_` keys only. Emits a realistic event of any type (your `data` merged over the sample) through the same outbox and delivery path as real events, like `stripe trigger`.',
    scope: 'webhooks:write',
    body: TriggerEventBody,
    success: { status: 201, description: 'The event and the webhooks it goes to', schema: TriggeredEvent },
    handler: async ({ auth, body }) => {
      if (auth.environment !== 'test') {
        throw forbidden('Sample events can only be triggered with a sandbox (pk_test_) key');
      }
      const data = { ...sampleEventData(body.type, body.personaId), ...body.data };
      // the answer is read before the commit: once the event is committed nothing can fail the
      // request, so a client never retries (and emits again) an event that was in fact sent
      const answer = await ctx.orm.em.fork().transactional(async (tem) => {
        const { envelope, event } = emitEvent(tem, {
          accountId: auth.accountId,
          environment: auth.environment,
          type: body.type,
          data,
          personaId: body.personaId ?? (typeof data.personaId === 'string' ? data.personaId : null),
        });
        await tem.flush();
        const hooks = await matchingWebhooks(tem.getTransactionContext() as Knex.Transaction, [event.id]);
        return { event: envelope, matchingWebhooks: hooks.map((h) => h.webhookId) };
      });
      return ok(answer);
    },
  });
}
