import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import { type CampaignAction, controlCampaign } from './campaign-controls';
import {
  CampaignContactList,
  CampaignEnvelope,
  CampaignIdParams,
  CampaignList,
  CreateCampaignBody,
  ListCampaignsQuery,
  ListContactsQuery,
} from './campaigns.schemas';
import { createCampaign, getCampaign, listCampaigns, listContacts } from './campaigns.service';

const CONTROLS: Record<CampaignAction, { summary: string; description: string }> = {
  pause: {
    summary: 'Pause a campaign',
    description:
      'Places no new call until resumed; calls under way go on. Answers once the campaign has paused.',
  },
  resume: {
    summary: 'Resume a campaign',
    description: 'Places calls again, within calling hours. Answers once the campaign runs again.',
  },
  cancel: {
    summary: 'Cancel a campaign',
    description:
      'Places no new call, ever; no call under way is hung up. The campaign ends `canceled` once those calls end (`campaign.completed`). A canceled campaign answers as it is.',
  },
};

/** Outbound campaigns (docs/campaigns.md, docs/api-contract.md "Campaigns"). */
export function mountCampaignRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/campaigns',
      idempotent: true,
      summary: 'Create a campaign',
      description:
        'Calls each contact from the number with the persona, at most `concurrency` at once, only within `callingHours`, retrying busy, unanswered or voicemail calls per `retry`. Every destination is checked as a call’s is. Answers the campaign `running`; its workflow calls.',
      scope: 'phone:write',
      body: CreateCampaignBody,
      success: { status: 201, description: 'The campaign, running', schema: CampaignEnvelope },
      handler: async ({ auth, body }) => ok(await createCampaign(ctx, em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/campaigns',
      summary: 'List campaigns',
      scope: 'phone:read',
      query: ListCampaignsQuery,
      success: { description: 'Campaigns, newest first', schema: CampaignList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listCampaigns(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/campaigns/:id',
      summary: 'Get a campaign',
      description: 'Its status, its contacts per final outcome, and its progress.',
      scope: 'phone:read',
      params: CampaignIdParams,
      success: { description: 'The campaign', schema: CampaignEnvelope },
      handler: async ({ auth, params }) => ok(await getCampaign(em(), auth, params.id)),
    })
    .route({
      method: 'get',
      path: '/campaigns/:id/contacts',
      summary: "A campaign's contacts",
      description:
        'By their place in the request: each attempt with its call and outcome, and the final outcome.',
      scope: 'phone:read',
      params: CampaignIdParams,
      query: ListContactsQuery,
      success: { description: 'Contacts, in request order', schema: CampaignContactList },
      handler: async ({ auth, params, query }) => {
        const { data, total } = await listContacts(em(), auth, params.id, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    });
  for (const action of ['pause', 'resume', 'cancel'] as const) {
    platform.route({
      method: 'post',
      path: `/campaigns/:id/${action}`,
      ...CONTROLS[action],
      scope: 'phone:write',
      params: CampaignIdParams,
      success: { description: 'The campaign', schema: CampaignEnvelope },
      handler: async ({ auth, params }) => ok(await controlCampaign(ctx, em(), auth, params.id, action)),
    });
  }
}
