import type { AdminAuth } from '../auth/admin-auth';
import type { MarketplacePublisher, MarketplaceUser } from '../auth/marketplace-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { mountAgentSessionRoutes } from './agents/agent-sessions.routes';
import { mountBrowseRoutes } from './browse/browse.routes';
import { mountExecutionRoutes } from './execution/execution.routes';
import { mountInstallationRoutes } from './installations/installations.routes';
import { mountPublisherAdminRoutes, mountPublisherRoutes } from './publisher/publisher.routes';
import { mountRemovalRoutes } from './removal/removal.routes';
import { mountSubmissionAdminRoutes, mountSubmissionRoutes } from './submission/submission.routes';

/**
 * The marketplace (`/api/marketplace`): publisher routes (submission and review, views, removal),
 * public browse, user routes (installations, runs, usage, quotas), and the operators' routes.
 * Voice sessions use `installedToolsForUser` and `executeInstalledTool` (exported below).
 */
export function mountMarketplaceRoutes(
  roots: {
    marketplaceUser: ApiRoot<MarketplaceUser>;
    marketplacePublisher: ApiRoot<MarketplacePublisher>;
    marketplacePublic: ApiRoot<null>;
    admin: ApiRoot<AdminAuth>;
    /** The review routes: ADMIN_TOKEN or a reviewer's ID token. */
    reviews: ApiRoot<AdminAuth>;
  },
  ctx: AppContext,
): void {
  // the fixed /publisher/items and /publisher/profile before /publisher/:id
  mountPublisherRoutes(roots.marketplacePublisher, ctx);
  mountSubmissionRoutes(roots.marketplacePublisher, ctx);
  mountRemovalRoutes(roots.marketplacePublisher, ctx);
  mountBrowseRoutes(roots.marketplacePublic, ctx);
  mountInstallationRoutes(roots.marketplaceUser, ctx);
  mountExecutionRoutes(roots.marketplaceUser, ctx);
  mountAgentSessionRoutes(roots.marketplaceUser, ctx);
  mountSubmissionAdminRoutes(roots.reviews, ctx);
  mountPublisherAdminRoutes(roots.admin, ctx);
}
