import { finishCampaign } from '../src/campaigns/campaign-finish';
import { type AdvanceInput, advanceCampaign, setCampaignStatus } from '../src/campaigns/campaign-steps';
import { insertQueuedCalls, recordedCallEnds, unendedCalls } from '../src/telephony/calls/queued-calls';
import type { ActivityDeps } from './deps';

/**
 * An outbound campaign's steps (workflows/campaign.ts), each idempotent: a step records outcomes and
 * claims calls once (its `stepId`), committing the claimed calls `queued` through the telephony
 * area's insert, in the same transaction.
 */
export function createCampaignActivities(deps: ActivityDeps) {
  return {
    advanceCampaign: (input: AdvanceInput) => advanceCampaign(deps, input, insertQueuedCalls),
    setCampaignStatus: (input: { campaignId: string; status: 'running' | 'paused' | 'canceled' }) =>
      setCampaignStatus(deps, input),
    /** The carried-over calls (workflows/campaign-calls.ts) whose end is recorded, though unheard. */
    recordedCallEnds: (input: { callIds: string[] }) =>
      recordedCallEnds(deps.orm.em.getConnection().getKnex(), input.callIds),
    finishCampaign: (input: { campaignId: string }) => finishCampaign(deps, input, unendedCalls),
  };
}
