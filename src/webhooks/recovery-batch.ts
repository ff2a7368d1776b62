import type { Knex } from 'knex';
import { derivedId } from '../common/ids';
import { WEBHOOK_DISABLED_ERROR } from './attempt-record';
import { DISABLED_WEBHOOK_SQL, TEST_RUN_EVENT_SQL } from './matching-sql';

export interface RecoveryBatchInput {
  recoveryId: string;
  batchSize: number;
}

export interface RecoveryBatchResult {
  /** `running`: more batches follow; `gone`: the recovery (or its webhook) was deleted. */
  status: 'running' | 'completed' | 'canceled' | 'gone';
  /** Deliveries the recovery queued so far. */
  total: number;
}

interface RecoveryRow {
  id: string;
  account_id: string;
  environment: string;
  webhook_id: string;
  status: string;
  total: number;
  enabled: boolean;
}

/**
 * The next events of the recovery's window that its webhook subscribes to (the fan-out's rule, see
 * matchingWebhooks) and has neither got nor is still getting (no `delivered` or `pending`
 * delivery), after the cursor, in (created_at, id) order. Only dispatched events: one not yet
 * fanned out is the dispatcher's to deliver.
 */
const NEXT_MISSED_EVENTS = `
select e.id, e.type, e.created_at
from webhook_recoveries r
join webhooks w on w.id = r.webhook_id
join events e on e.account_id = r.account_id and e.environment = r.environment
  and e.created_at >= r.since and e.created_at <= r.until
  and (r.cursor_created_at is null or (e.created_at, e.id) > (r.cursor_created_at, r.cursor_event_id))
where r.id = ? and e.dispatched_at is not null
  and e.type = any(w.events) and e.type <> 'webhook.test'
  and (w.persona_id is null or w.persona_id = e.persona_id)
  and (w.include_test_runs or not ${TEST_RUN_EVENT_SQL})
  and w.id is distinct from (${DISABLED_WEBHOOK_SQL})
  and not exists (select 1 from deliveries d where d.webhook_id = w.id and d.event_id = e.id
    and d.status in ('delivered', 'pending'))
order by e.created_at, e.id
limit ?`;

/**
 * One batch of a recovery, in one transaction on its locked row: queues a `pending` delivery
 * (`recovery_id` set, id derived from recovery and event, so a repeat inserts nothing) for each
 * next missed event, moves the cursor past them and adds them to `total`. Fewer than a batch
 * completes the recovery; a webhook disabled meanwhile cancels it.
 */
export async function queueRecoveryBatch(
  knex: Knex,
  input: RecoveryBatchInput,
): Promise<RecoveryBatchResult> {
  return knex.transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: RecoveryRow[] }>(
      `select r.id, r.account_id, r.environment, r.webhook_id, r.status, r.total, w.enabled
       from webhook_recoveries r join webhooks w on w.id = r.webhook_id where r.id = ? for update of r`,
      [input.recoveryId],
    );
    const recovery = rows[0];
    if (!recovery) return { status: 'gone', total: 0 };
    if (recovery.status !== 'running') {
      return { status: recovery.status as RecoveryBatchResult['status'], total: recovery.total };
    }
    if (!recovery.enabled) {
      await trx.raw(
        `update webhook_recoveries set status = 'canceled', error = ?, completed_at = now(), updated_at = now() where id = ?`,
        [WEBHOOK_DISABLED_ERROR, recovery.id],
      );
      return { status: 'canceled', total: recovery.total };
    }
    const { rows: events } = await trx.raw<{ rows: { id: string; type: string; created_at: Date }[] }>(
      NEXT_MISSED_EVENTS,
      [recovery.id, input.batchSize],
    );
    if (events.length > 0) {
      await trx.raw(
        `insert into deliveries (id, account_id, environment, webhook_id, event_id, event_type, status, attempts, test, recovery_id, created_at)
         select d.id, ?, ?, ?, d.event_id, d.event_type, 'pending', 0, false, ?, now()
         from unnest(?::text[], ?::text[], ?::text[]) as d(id, event_id, event_type)
         on conflict (id) do nothing`,
        [
          recovery.account_id,
          recovery.environment,
          recovery.webhook_id,
          recovery.id,
          events.map((e) => derivedId('del', recovery.id, e.id)),
          events.map((e) => e.id),
          events.map((e) => e.type),
        ],
      );
    }
    const last = events.at(-1);
    const done = events.length < input.batchSize;
    const total = recovery.total + events.length;
    await trx.raw(
      `update webhook_recoveries set total = ?, updated_at = now(),
         cursor_created_at = coalesce(?, cursor_created_at), cursor_event_id = coalesce(?, cursor_event_id),
         status = case when ? then 'completed' else status end,
         completed_at = case when ? then now() else completed_at end
       where id = ?`,
      [total, last?.created_at ?? null, last?.id ?? null, done, done, recovery.id],
    );
    return { status: done ? 'completed' : 'running', total };
  });
}
