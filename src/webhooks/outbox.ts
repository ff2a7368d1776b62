import type { Knex } from 'knex';
import { derivedId } from '../common/ids';
import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../events/outbox';
import { startDeliveryWorkflow, startRecoveryWorkflow } from './delivery-workflows';
import { DISABLED_WEBHOOK_SQL, TEST_RUN_EVENT_SQL } from './matching-sql';

/** An event and one webhook it goes to. */
export interface WebhookMatch {
  eventId: string;
  webhookId: string;
  accountId: string;
  environment: string;
  eventType: string;
}

/**
 * The webhooks each event goes to: same account and environment, enabled, subscribed to the event
 * type, without a persona or with the event's persona, and, for the events of an agent-test run's
 * session, opted in (`include_test_runs`); a `webhook.disabled` goes to the account's other ones.
 * Oldest webhook first. The one matching rule, used by the fan-out and by POST /events/trigger's
 * `matchingWebhooks` (recoveries apply it too: recovery-batch.ts).
 */
export async function matchingWebhooks(knex: Knex, eventIds: string[]): Promise<WebhookMatch[]> {
  const { rows } = await knex.raw<{ rows: WebhookMatch[] }>(
    `with ev as (
       select e.id, e.account_id, e.environment, e.type, e.persona_id, ${TEST_RUN_EVENT_SQL} as test_run,
         ${DISABLED_WEBHOOK_SQL} as about_webhook
       from events e where e.id = any(?))
     select e.id as "eventId", w.id as "webhookId", e.account_id as "accountId",
            e.environment, e.type as "eventType"
     from ev e
     join webhooks w on w.account_id = e.account_id and w.environment = e.environment
       and w.enabled and e.type = any(w.events)
       and (w.persona_id is null or w.persona_id = e.persona_id)
       and (w.include_test_runs or not e.test_run)
       and w.id is distinct from e.about_webhook
     order by w.created_at, w.id`,
    [eventIds],
  );
  return rows;
}

interface UnstartedRecovery {
  id: string;
  account_id: string;
  webhook_id: string;
}

interface UnstartedDelivery {
  id: string;
  account_id: string;
  listener: boolean;
  listener_task_queue: string | null;
  webhook_id: string;
  event_id: string;
  event_type: string;
  test: boolean;
}

/**
 * Webhooks' side of the outbox: each claimed event becomes one `pending` delivery per matching
 * webhook (delivery id derived from event and webhook), and pending deliveries without a workflow
 * get one (workflow id = delivery id), as do recoveries without one (workflow id = recovery id).
 */
export function createWebhookOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'webhooks',
    // matchingWebhooks' rule without its persona and test-run tests (a superset)
    wantsEventSql: `exists (select 1 from webhooks w where w.account_id = e.account_id
      and w.environment = e.environment and w.enabled and e.type = any(w.events))`,

    async onEvents(trx, eventIds) {
      const matches = await matchingWebhooks(trx, eventIds);
      if (matches.length === 0) return 0;
      await trx.raw(
        `insert into deliveries (id, account_id, environment, webhook_id, event_id, event_type, status, attempts, test, created_at)
         select * , 'pending', 0, false, now() from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
         on conflict (id) do nothing`,
        [
          matches.map((m) => derivedId('del', m.eventId, m.webhookId)),
          matches.map((m) => m.accountId),
          matches.map((m) => m.environment),
          matches.map((m) => m.webhookId),
          matches.map((m) => m.eventId),
          matches.map((m) => m.eventType),
        ],
      );
      return matches.length;
    },

    async startPending(startClaimed) {
      const deliveries = await startClaimed<UnstartedDelivery>({
        table: 'deliveries',
        // a listener's delivery goes to the task queue of the API process holding its socket
        claimSql: `select id, account_id, webhook_id, event_id, event_type, test,
             (select w.listener_task_queue from webhooks w where w.id = d.webhook_id and w.kind = 'listener') as listener_task_queue,
             exists (select 1 from webhooks w where w.id = d.webhook_id and w.kind = 'listener') as listener
           from deliveries d where workflow_started_at is null and status = 'pending'
           order by created_at limit ? for update of d skip locked`,
        bindings: [OUTBOX_BATCH],
        start: (r) =>
          startDeliveryWorkflow(temporal, config, {
            id: r.id,
            accountId: r.account_id,
            webhookId: r.webhook_id,
            eventId: r.event_id,
            eventType: r.event_type,
            singleAttempt: r.test || r.listener,
            listenerTaskQueue: r.listener ? (r.listener_task_queue ?? undefined) : undefined,
          }),
      });
      const recoveries = await startClaimed<UnstartedRecovery>({
        table: 'webhook_recoveries',
        claimSql: `select id, account_id, webhook_id from webhook_recoveries
           where workflow_started_at is null and status = 'running'
           order by created_at limit ? for update skip locked`,
        bindings: [OUTBOX_BATCH],
        start: (r) =>
          startRecoveryWorkflow(temporal, config, {
            id: r.id,
            accountId: r.account_id,
            webhookId: r.webhook_id,
          }),
      });
      return deliveries + recoveries;
    },
  };
}
