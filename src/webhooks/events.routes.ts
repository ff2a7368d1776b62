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
      const em = ctx.orm.em;
      const data = { ...sampleEventData(body.type, body.personaId), ...body.data };
      const { envelope, event } = emitEvent(em, {
        accountId: auth.accountId,
        environment: auth.environment,
        type: body.type,
        data,
        personaId: body.personaId ?? (typeof data.personaId === 'string' ? data.personaId : null),
      });
      await em.flush();
      const hooks = await matchingWebhooks(em.getConnection().getKnex(), [event.id]);
      return ok({ event: envelope, matchingWebhooks: hooks.map((h) => h.webhookId) });
    },
  });
}
