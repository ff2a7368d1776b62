import { createAgentTestActivities } from './agent-tests';
import { createCallAnalysisActivities } from './call-analysis';
import { createCallActivities } from './calls';
import type { ActivityDeps } from './deps';
import { createHousekeepingActivities } from './housekeeping';
import { createMarketplaceActivities } from './marketplace';
import { createReviewActivities } from './reviews';
import { createSessionActivities } from './sessions';
import { createSystemActivities } from './system';
import { createVoiceWorkflowActivities } from './voice-workflows';
import { createWebhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

/** Every activity the worker registers, bound to the process's dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
    ...createWebhookActivities(deps),
    ...createVoiceWorkflowActivities(deps),
    ...createHousekeepingActivities(deps),
    ...createReviewActivities(deps),
    ...createSessionActivities(deps),
    ...createMarketplaceActivities(deps),
    ...createAgentTestActivities(deps),
    ...createCallAnalysisActivities(deps),
    ...createCallActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
