import { completeRemoval } from '../src/marketplace/removal/removal.service';
import { runAutomatedChecks } from '../src/marketplace/submission/checks';
import type { ActivityDeps } from './deps';

/** Marketplace reviews' automated checks and removals' last step; both idempotent. */
export function createMarketplaceActivities(deps: ActivityDeps) {
  return {
    /** Lint + MCP tools/list (+ agent tools) for one submitted version; findings stored as its reviewNotes. */
    runMarketplaceChecks: (input: { reviewId: string }) => runAutomatedChecks(deps, input.reviewId),
    /** The grace period ended: the item and its installations become `removed`, unless restored. */
    completeMarketplaceRemoval: (input: { removalId: string }) => completeRemoval(deps, input.removalId),
  };
}
