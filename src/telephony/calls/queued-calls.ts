import type { Knex } from 'knex';
import type { Environment } from '../../common/owner';

/** An outbound call to commit `queued`, with its id fixed beforehand. */
export interface QueuedCall {
  id: string;
  accountId: string;
  environment: Environment;
  phoneNumberId: string;
  personaId: string;
  from: string;
  to: string;
  variables: Record<string, string>;
  maxDurationS: number;
}

/**
 * Commits outbound calls `queued`, in `trx`, for a workflow that starts their call workflows itself
 * as its children (a campaign's, docs/campaigns.md): ids derived by the caller, so a repeat inserts
 * nothing twice, and `workflow_started_at` set, so the calls' outbox handler never starts them too.
 */
export async function insertQueuedCalls(trx: Knex.Transaction, calls: QueuedCall[]): Promise<void> {
  if (calls.length === 0) return;
  await trx.raw(
    `insert into calls (id, account_id, environment, phone_number_id, persona_id, direction, "from", "to",
       status, timeline, variables, max_duration_s, workflow_started_at, created_at, updated_at)
     select c.id, c.account_id, c.environment, c.phone_number_id, c.persona_id, 'outbound', c.from_number,
       c.to_number, 'queued', jsonb_build_array(jsonb_build_object('status', 'queued', 'at', ?::text)),
       c.variables, c.max_duration_s, now(), now(), now()
     from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::int[])
       as c(id, account_id, environment, phone_number_id, persona_id, from_number, to_number, variables, max_duration_s)
     on conflict (id) do nothing`,
    [
      new Date().toISOString(),
      calls.map((c) => c.id),
      calls.map((c) => c.accountId),
      calls.map((c) => c.environment),
      calls.map((c) => c.phoneNumberId),
      calls.map((c) => c.personaId),
      calls.map((c) => c.from),
      calls.map((c) => c.to),
      calls.map((c) => JSON.stringify(c.variables)),
      calls.map((c) => c.maxDurationS),
    ],
  );
}
