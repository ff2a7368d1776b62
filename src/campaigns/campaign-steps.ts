import type { Knex } from 'knex';
import type { CoreContext } from '../common/context';
import { derivedId } from '../common/ids';
import type { Environment } from '../common/owner';
import { type RetryPlan, retries } from './call-outcomes';
import type { CallOutcome, CampaignStatus } from './statuses';

/** The longest call a campaign places: its calls hang up this long after the answer. */
export const CAMPAIGN_CALL_MAX_DURATION_S = 600;

/** An attempt's outcome, for the contact's row. */
export interface AttemptOutcome {
  index: number;
  attempt: number;
  outcome: CallOutcome;
}

/** One step of a campaign's workflow: the outcomes to record, then up to `want` calls to claim. */
export interface AdvanceInput {
  campaignId: string;
  /** Unique per step (the run's id and the step's number): the same step run again claims the same calls. */
  stepId: string;
  outcomes: AttemptOutcome[];
  want: number;
  /** The workflow's clock (ms): retries due by then are claimed; a retry's delay counts from it. */
  now: number;
  /** Real ms since the epoch after which nothing is claimed (the calling window closes); null: none. */
  claimUntil: number | null;
}

/** A call a step claimed: the contact, its attempt, and the call's id (derived from all three). */
export interface ClaimedCall {
  index: number;
  attempt: number;
  callId: string;
}

export interface AdvanceResult {
  calls: ClaimedCall[];
  /** Contacts not done: pending, waiting to retry, or with a call under way. */
  remaining: number;
  /** When the earliest contact waiting to retry is due (ms), or null. */
  nextRetryAt: number | null;
  /** It looked for `want` due contacts and found fewer: nothing more is due before `nextRetryAt`. */
  exhausted: boolean;
}

/** A row of calls to commit `queued` (the telephony area's insert, given by activities/campaigns.ts). */
export interface CallToQueue {
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
export type QueueCalls = (trx: Knex.Transaction, calls: CallToQueue[]) => Promise<void>;

export interface CampaignRow {
  id: string;
  account_id: string;
  environment: Environment;
  phone_number_id: string;
  persona_id: string;
  from_number: string;
  status: CampaignStatus;
  retry: RetryPlan;
  minute_ms: number;
  ended_at: Date | null;
}

export const knexOf = (ctx: Pick<CoreContext, 'orm'>): Knex => ctx.orm.em.getConnection().getKnex();

/** The id of the call of a contact's attempt: the same (campaign, contact, attempt), the same call. */
export const campaignCallId = (campaignId: string, index: number, attempt: number) =>
  derivedId('call', campaignId, String(index), String(attempt));

/**
 * One step, in one transaction: records the outcomes (each once: a repeat finds the attempt settled),
 * each contact then waiting to retry or done per the plan; then claims up to `want` due contacts
 * (retries first, then by index), each an attempt more, and commits their calls `queued`. The same
 * step run again (a retried activity) answers the calls it claimed the first time and claims no
 * others: a contact is never called twice for one attempt.
 */
export async function advanceCampaign(
  ctx: Pick<CoreContext, 'orm'>,
  input: AdvanceInput,
  queueCalls: QueueCalls,
): Promise<AdvanceResult> {
  return knexOf(ctx).transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: CampaignRow[] }>(
      'select * from campaigns where id = ? for update',
      [input.campaignId],
    );
    const campaign = rows[0];
    if (!campaign) throw new Error(`Campaign ${input.campaignId} not found`);
    await recordOutcomes(trx, campaign, input);
    // an attempt of this step that committed and was then lost (its worker killed before the
    // workflow heard the answer): its calls are queued, so they are this step's answer, whatever the
    // step wants now (the workflow, replayed with signals that came meanwhile, may want more or none)
    const repeated = await claimedByStep(trx, input);
    const claimable =
      repeated.length === 0 &&
      input.want > 0 &&
      campaign.status === 'running' &&
      (input.claimUntil === null || Date.now() < input.claimUntil);
    const calls = claimable ? await claimCalls(trx, campaign, input, queueCalls) : repeated;
    const { rows: left } = await trx.raw<{ rows: { remaining: number; next_retry: Date | null }[] }>(
      `select count(*) filter (where status in ('pending', 'retry', 'calling'))::int as remaining,
              min(next_attempt_at) filter (where status = 'retry') as next_retry
         from campaign_contacts where campaign_id = ?`,
      [input.campaignId],
    );
    const next = left[0]?.next_retry;
    return {
      calls,
      remaining: left[0]?.remaining ?? 0,
      nextRetryAt: next ? new Date(next).getTime() : null,
      exhausted: claimable && calls.length < input.want,
    };
  });
}

async function recordOutcomes(trx: Knex.Transaction, campaign: CampaignRow, input: AdvanceInput) {
  if (input.outcomes.length === 0) return;
  const delayMs = campaign.retry.delayMinutes * campaign.minute_ms;
  const again = input.outcomes.map((o) => retries(campaign.retry, o.outcome, o.attempt));
  await trx.raw(
    `update campaign_contacts c set
       attempts = jsonb_set(c.attempts, array[(c.attempt_count - 1)::text, 'outcome'], to_jsonb(o.outcome)),
       status = case when o.again then 'retry' else 'done' end,
       outcome = case when o.again then null else o.outcome end,
       next_attempt_at = case when o.again then ?::timestamptz else null end,
       updated_at = now()
     from unnest(?::int[], ?::int[], ?::text[], ?::bool[]) as o(idx, attempt, outcome, again)
     where c.campaign_id = ? and c.index = o.idx and c.attempt_count = o.attempt and c.status = 'calling'`,
    [
      new Date(input.now + delayMs).toISOString(),
      input.outcomes.map((o) => o.index),
      input.outcomes.map((o) => o.attempt),
      input.outcomes.map((o) => o.outcome),
      again,
      input.campaignId,
    ],
  );
}

interface DueContact {
  index: number;
  to: string;
  variables: Record<string, string>;
  attempt_count: number;
}

const claimedCall = (campaignId: string, r: { index: number; attempt_count: number }): ClaimedCall => ({
  index: r.index,
  attempt: r.attempt_count,
  callId: campaignCallId(campaignId, r.index, r.attempt_count),
});

/** The calls an earlier attempt of this step claimed (and committed `queued`), if one did. */
async function claimedByStep(trx: Knex.Transaction, input: AdvanceInput): Promise<ClaimedCall[]> {
  const { rows } = await trx.raw<{ rows: { index: number; attempt_count: number }[] }>(
    'select index, attempt_count from campaign_contacts where campaign_id = ? and claim_step = ? order by index',
    [input.campaignId, input.stepId],
  );
  return rows.map((r) => claimedCall(input.campaignId, r));
}

async function claimCalls(
  trx: Knex.Transaction,
  campaign: CampaignRow,
  input: AdvanceInput,
  queueCalls: QueueCalls,
): Promise<ClaimedCall[]> {
  const { rows: due } = await trx.raw<{ rows: DueContact[] }>(
    `select index, "to", variables, attempt_count from campaign_contacts
      where campaign_id = ? and (status = 'pending' or (status = 'retry' and next_attempt_at <= ?::timestamptz))
      order by status = 'retry' desc, index limit ?`,
    [input.campaignId, new Date(input.now).toISOString(), input.want],
  );
  if (due.length === 0) return [];
  const calls = due.map((d) =>
    claimedCall(input.campaignId, { index: d.index, attempt_count: d.attempt_count + 1 }),
  );
  await trx.raw(
    `update campaign_contacts c set status = 'calling', attempt_count = o.attempt, claim_step = ?,
       next_attempt_at = null, updated_at = now(),
       attempts = c.attempts || jsonb_build_array(jsonb_build_object(
         'attempt', o.attempt, 'callId', o.call_id, 'outcome', null,
         'at', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
     from unnest(?::int[], ?::int[], ?::text[]) as o(idx, attempt, call_id)
     where c.campaign_id = ? and c.index = o.idx`,
    [
      input.stepId,
      calls.map((c) => c.index),
      calls.map((c) => c.attempt),
      calls.map((c) => c.callId),
      input.campaignId,
    ],
  );
  await queueCalls(
    trx,
    due.map((d, i) => ({
      id: calls[i]!.callId,
      accountId: campaign.account_id,
      environment: campaign.environment,
      phoneNumberId: campaign.phone_number_id,
      personaId: campaign.persona_id,
      from: campaign.from_number,
      to: d.to,
      variables: d.variables,
      maxDurationS: CAMPAIGN_CALL_MAX_DURATION_S,
    })),
  );
  return calls;
}

/** Sets a campaign's status (pause, resume, cancel), unless it has ended or was canceled. */
export async function setCampaignStatus(
  ctx: Pick<CoreContext, 'orm'>,
  input: { campaignId: string; status: 'running' | 'paused' | 'canceled' },
): Promise<void> {
  await knexOf(ctx).raw(
    `update campaigns set status = ?, updated_at = now()
      where id = ? and ended_at is null and status <> 'canceled'`,
    [input.status, input.campaignId],
  );
}
