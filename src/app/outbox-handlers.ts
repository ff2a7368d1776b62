import { createTestRunOutboxHandler } from '../agent-tests';
import { createAnalysisOutboxHandler } from '../call-analysis';
import { createCampaignOutboxHandler } from '../campaigns';
import type { OutboxDeps, OutboxHandler } from '../events/outbox';
import { createKnowledgeOutboxHandler } from '../knowledge';
import { createMarketplaceRemovalOutboxHandler } from '../marketplace/removal/outbox';
import { createReviewOutboxHandler } from '../reviews/outbox';
import { createSessionOutboxHandler } from '../sessions/outbox';
import { createCallOutboxHandler } from '../telephony';
import { createWorkflowOutboxHandler } from '../voice-workflows/outbox';
import { createWebhookOutboxHandler } from '../webhooks/outbox';

/**
 * Every area's outbox handler, in the order the dispatcher runs them. A new area with side effects
 * of events, or with workflows to start after commit, adds its factory here (see outbox.ts).
 */
export function createOutboxHandlers(deps: OutboxDeps): OutboxHandler[] {
  return [
    createWebhookOutboxHandler(deps),
    createWorkflowOutboxHandler(deps),
    createReviewOutboxHandler(deps),
    createSessionOutboxHandler(deps),
    createMarketplaceRemovalOutboxHandler(deps),
    createTestRunOutboxHandler(deps),
    createAnalysisOutboxHandler(deps),
    createCallOutboxHandler(deps),
    createCampaignOutboxHandler(deps),
    createKnowledgeOutboxHandler(deps),
  ];
}
