import type { Workload } from '../src/temporal/task-queues';
import { createAgentTestActivities } from './agent-tests';
import { createCallAnalysisActivities } from './call-analysis';
import { createCallActivities } from './calls';
import { createCampaignActivities } from './campaigns';
import type { ActivityDeps } from './deps';
import { createHousekeepingActivities } from './housekeeping';
import { createKnowledgeActivities } from './knowledge';
import { createMarketplaceActivities } from './marketplace';
import { createReviewActivities } from './reviews';
import { createSessionActivities } from './sessions';
import { createSystemActivities } from './system';
import { createVoiceWorkflowActivities } from './voice-workflows';
import { createWebhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

/**
 * Each pool's activities (src/temporal/task-queues.ts), bound to the process's dependencies. A
 * workflow's activities run on its own pool, so every activity sent through a task queue is
 * registered by exactly one pool. The voice-workflow graph's steps are local activities (they run in
 * the worker of the workflow that calls them, through no queue): a voice command runs its graph in
 * the conversation, an execution in its own workflow, so both of those pools register them.
 */
export const POOL_ACTIVITIES = {
  conversations: (deps: ActivityDeps) => ({
    ...createSessionActivities(deps),
    ...createCallActivities(deps),
    ...createVoiceWorkflowActivities(deps),
  }),
  deliveries: (deps: ActivityDeps) => createWebhookActivities(deps),
  executions: (deps: ActivityDeps) => createVoiceWorkflowActivities(deps),
  background: (deps: ActivityDeps) => ({
    ...createSystemActivities(deps),
    ...createHousekeepingActivities(deps),
    ...createReviewActivities(deps),
    ...createMarketplaceActivities(deps),
    ...createAgentTestActivities(deps),
    ...createCallAnalysisActivities(deps),
    ...createCampaignActivities(deps),
    ...createKnowledgeActivities(deps),
  }),
} satisfies Record<Workload, (deps: ActivityDeps) => object>;

/** Every activity of every pool (the type workflows proxy). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...POOL_ACTIVITIES.conversations(deps),
    ...POOL_ACTIVITIES.deliveries(deps),
    ...POOL_ACTIVITIES.executions(deps),
    ...POOL_ACTIVITIES.background(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
