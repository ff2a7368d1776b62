import type { Knex } from 'knex';
import type { CoreContext } from '../common/context';
import { derivedId } from '../common/ids';
import { eventRow, insertEventsSql } from '../events/emit';
import { campaignCounts } from './campaign-counts';
import { type CampaignRow, knexOf } from './campaign-steps';
import type { CampaignStatus } from './statuses';

/** A call's end recorded by its own workflow just after it told its campaign (the telephony area's read). */
export type UnendedCalls = (trx: Knex.Transaction, callIds: string[]) => Promise<string[]>;

/** How long a campaign's finish waits for calls it heard end to record their ends (then it goes on). */
const CALL_END_WAIT = '1 minute';

/**
 * The calls whose end the campaign heard in the last CALL_END_WAIT whose own end is not recorded
 * yet: a call carried over from an earlier run (continue-as-new) is no child of the last one, which
 * hears only its word. The finish waits for them (retried), so `campaign.completed` follows every
 * `call.ended`.
 */
export class CallsStillEnding extends Error {
  constructor(readonly callIds: string[]) {
    super(`${callIds.length} of the campaign's calls have not recorded their end yet`);
  }
}

async function callsStillEnding(trx: Knex.Transaction, campaignId: string, unended: UnendedCalls) {
  const { rows } = await trx.raw<{ rows: { call_id: string }[] }>(
    `select attempts -> (attempt_count - 1) ->> 'callId' as call_id from campaign_contacts
      where campaign_id = ? and status in ('done', 'retry') and attempt_count > 0
        and updated_at > now() - interval '${CALL_END_WAIT}'`,
    [campaignId],
  );
  const waiting = await unended(
    trx,
    rows.map((r) => r.call_id),
  );
  if (waiting.length > 0) throw new CallsStillEnding(waiting);
}

/**
 * Ends a campaign: `completed`, or `canceled` if it was (its contacts not done then are left
 * `canceled`), and `campaign.completed` with its counts, in one transaction, once (the event's id
 * is derived from the campaign), once its calls' ends are recorded (CallsStillEnding).
 */
export async function finishCampaign(
  ctx: Pick<CoreContext, 'orm'>,
  input: { campaignId: string },
  unended: UnendedCalls,
): Promise<{ status: CampaignStatus }> {
  return knexOf(ctx).transaction(async (trx) => {
    await callsStillEnding(trx, input.campaignId, unended);
    const { rows } = await trx.raw<{ rows: (CampaignRow & { name: string })[] }>(
      `update campaigns set status = case when status = 'canceled' then 'canceled' else 'completed' end,
         ended_at = now(), updated_at = now()
       where id = ? and ended_at is null returning *`,
      [input.campaignId],
    );
    const campaign = rows[0];
    if (!campaign) {
      const { rows: seen } = await trx.raw<{ rows: { status: CampaignStatus }[] }>(
        'select status from campaigns where id = ?',
        [input.campaignId],
      );
      return { status: seen[0]?.status ?? 'completed' };
    }
    if (campaign.status === 'canceled') {
      await trx.raw(
        `update campaign_contacts set status = 'canceled', next_attempt_at = null, updated_at = now()
          where campaign_id = ? and status in ('pending', 'retry')`,
        [campaign.id],
      );
    }
    const counts = (await campaignCounts(trx, [campaign.id])).get(campaign.id)!;
    const owner = { accountId: campaign.account_id, environment: campaign.environment };
    const event = eventRow({
      ...owner,
      id: derivedId('evt', campaign.id, 'campaign.completed'),
      type: 'campaign.completed',
      personaId: campaign.persona_id,
      data: { campaignId: campaign.id, name: campaign.name, status: campaign.status, ...counts },
    });
    const { sql, bindings } = insertEventsSql(owner, [event]);
    await trx.raw(sql, bindings);
    return { status: campaign.status };
  });
}
