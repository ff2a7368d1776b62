import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { cancelCampaignUpdate, pauseCampaignUpdate, resumeCampaignUpdate } from '../../workflows/messages';
import type { AppContext } from '../common/context';
import type { Owner } from '../common/owner';
import { ApiError, conflict } from '../http/errors';
import { knownRefusal } from '../temporal/update-refusal';
import { findCampaign, startCommitted, viewCampaign } from './campaigns.service';

export type CampaignAction = 'pause' | 'resume' | 'cancel';

const UPDATES = { pause: pauseCampaignUpdate, resume: resumeCampaignUpdate, cancel: cancelCampaignUpdate };
/** How long the API waits for the campaign's workflow to take a pause, resume or cancel. */
const CONTROL_WAIT_MS = 30_000;
/** What the campaign's workflow itself refuses (workflows/campaign.ts). */
const CAMPAIGN_REFUSALS = [/^The campaign was canceled$/];

/**
 * POST /campaigns/:id/pause | resume | cancel: the Workflow Update, answered with the campaign once
 * the workflow recorded the change. An ended campaign is a 409, but a cancel of a canceled one
 * answers it as it is; a pause or resume of a canceled one is a 409.
 */
export async function controlCampaign(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  action: CampaignAction,
) {
  const campaign = await findCampaign(em, owner, id);
  if (campaign.status === 'canceled' && action === 'cancel') return viewCampaign(em, campaign);
  if (campaign.endedAt) throw conflict(`Campaign ${id} has ended (${campaign.status})`);
  if (!campaign.workflowStartedAt && !(await startCommitted(ctx, em, campaign)))
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The campaign cannot be reached now; try again');
  const deadline = Date.now() + CONTROL_WAIT_MS;
  for (;;) {
    try {
      await ctx.temporal.withAbortSignal(AbortSignal.timeout(CONTROL_WAIT_MS), () =>
        ctx.temporal.workflow.getHandle(id).executeUpdate(UPDATES[action]),
      );
      break;
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) {
        const refusal = knownRefusal(error, CAMPAIGN_REFUSALS);
        if (refusal) throw conflict(`The campaign did not ${action}: ${refusal}`);
      }
      // between two runs (continue-as-new) or just ended: look again shortly
      const transient = error instanceof WorkflowNotFoundError || error instanceof WorkflowUpdateFailedError;
      if (!transient || Date.now() > deadline)
        throw new ApiError(503, 'SERVICE_UNAVAILABLE', `The campaign did not ${action} now; try again`);
      const ended = await em.refresh(campaign);
      if (ended?.endedAt) throw conflict(`Campaign ${id} has ended (${ended.status})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return viewCampaign(em, await em.refreshOrFail(campaign));
}
