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

/** Of these calls, those whose end is not recorded yet (a campaign's finish waits for them). */
export async function unendedCalls(trx: Knex.Transaction, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(
    'select id from calls where id = any(?::text[]) and ended_at is null',
    [ids],
  );
  return rows.map((r) => r.id);
}

/** A call's end as its row records it (a campaign looks up the calls it carried over). */
export interface RecordedCallEnd {
  callId: string;
  status: string;
  endedReason: string | null;
}

/** Of these calls, those whose end is recorded: their status and ended reason. */
export async function recordedCallEnds(knex: Knex, ids: string[]): Promise<RecordedCallEnd[]> {
  if (ids.length === 0) return [];
  const { rows } = await knex.raw<{ rows: { id: string; status: string; ended_reason: string | null }[] }>(
    'select id, status, ended_reason from calls where id = any(?::text[]) and ended_at is not null',
    [ids],
  );
  return rows.map((r) => ({ callId: r.id, status: r.status, endedReason: r.ended_reason }));
}
