import { mountAccountRoutes } from '../accounts/accounts.routes';
import { mountActivityRoutes } from '../activity-log/activities.routes';
import { mountAdminRoutes } from '../admin/admin.routes';
import { mountReviewDetailRoutes } from '../admin/review-detail';
import { mountReviewerRoutes } from '../admin/reviewers.routes';
import { mountAgentTestRoutes } from '../agent-tests';
import { mountAnalyticsRoutes } from '../analytics/analytics.routes';
import { mountCallAnalysisRoutes } from '../call-analysis';
import { mountCampaignRoutes } from '../campaigns';
import type { AppContext } from '../common/context';
import { mountKeyRoutes } from '../keys/keys.routes';
import { mountKnowledgeRoutes } from '../knowledge';
import { mountMarketplaceRoutes } from '../marketplace/marketplace.routes';
import { mountMcpServerRoutes } from '../mcp/mcp.routes';
import { mountOAuthCallback, mountOAuthRoutes } from '../oauth/oauth.routes';
import { mountGettingStartedRoutes } from '../onboarding/getting-started.routes';
import { mountPersonaReviewRoutes, mountPersonaRoutes } from '../personas/personas.routes';
import { mountProviderRoutes } from '../providers';
import { mountProviderUsageRoutes } from '../providers/usage.routes';
import { mountReviewRoutes } from '../reviews/reviews.routes';
import { mountSecretRoutes } from '../secrets/secrets.routes';
import { mountTranscriptLinkRoute } from '../sessions';
import { mountSessionRoutes } from '../sessions/sessions.routes';
import { mountCallRoutes, mountPhoneNumberRoutes, mountRecordingLinkRoute } from '../telephony';
import { mountToolRoutes } from '../tools/tools.routes';
import { mountWorkflowRoutes } from '../voice-workflows/workflows.routes';
import { mountVoiceRoutes } from '../voices/voices.routes';
import { mountEventRoutes } from '../webhooks/events.routes';
import { mountWebhookRoutes } from '../webhooks/webhooks.routes';
import type { ApiRoots } from './api-roots';

/** Every area's routes, on the API root each belongs to: the route registry of the composition root. */
export function mountAreaRoutes(roots: ApiRoots, ctx: AppContext): void {
  mountAccountRoutes(roots.console, ctx);
  mountKeyRoutes(roots.console, ctx);
  mountVoiceRoutes(roots.console, ctx);
  mountPersonaRoutes(roots.console, ctx);
  mountAgentTestRoutes(roots.console, roots.platform, ctx);
  mountAnalyticsRoutes(roots.console, ctx);
  mountGettingStartedRoutes(roots.console, ctx);
  mountProviderUsageRoutes(roots.console, ctx);
  mountSecretRoutes(roots.platform, ctx);
  mountProviderRoutes(roots.platform, ctx);
  mountWebhookRoutes(roots.platform, ctx);
  mountEventRoutes(roots.platform, ctx);
  mountOAuthRoutes(roots.platform, ctx);
  mountOAuthCallback(roots.platformPublic, ctx);
  mountMcpServerRoutes(roots.platform, ctx);
  mountToolRoutes(roots.platform, ctx);
  mountWorkflowRoutes(roots.platform, ctx);
  mountSessionRoutes(roots.platform, ctx);
  mountPhoneNumberRoutes(roots.platform, ctx);
  mountCallRoutes(roots.platform, ctx);
  mountCampaignRoutes(roots.platform, ctx);
  mountKnowledgeRoutes(roots.platform, ctx);
  mountCallAnalysisRoutes(roots.platform, ctx);
  // end-of-call links (docs/sessions.md "End-of-call links"): signed, no API key
  mountTranscriptLinkRoute(roots.platformPublic, ctx);
  mountRecordingLinkRoute(roots.platformPublic, ctx);
  mountActivityRoutes(roots.platform, ctx);
  mountAdminRoutes(roots.admin, ctx);
  mountReviewerRoutes(roots.admin, ctx);
  // the review routes take ADMIN_TOKEN or a reviewer's ID token (roots.reviews)
  mountReviewRoutes(roots.reviews, ctx);
  mountReviewDetailRoutes(roots.reviews, ctx);
  mountPersonaReviewRoutes(roots.reviews, ctx);
  mountMarketplaceRoutes(roots, ctx);
}
