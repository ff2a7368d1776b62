import { isCancellation, log, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { OperatorDecision, ReviewOutcome, ReviewWorkflowInput } from '../src/reviews/review-types';
import { decideReviewUpdate } from './messages';
import { awaitOperatorDecision } from './operator-review';

/**
 * One marketplace submission's review (workflow id `review-<item id>-<version>`): first the automated
 * checks (an activity: the manifest lint, and for an `mcp` runtime a real MCP connection whose
 * tools/list must list the tool; findings stored as the version's reviewNotes), then the same wait
 * for the operator's decision as persona reviews (the `decide` update, the 5-business-day overdue
 * timer). A newer version, or the item's final removal, withdraws it (cancellation).
 */
export async function reviewMarketplaceItemWorkflow(input: ReviewWorkflowInput): Promise<ReviewOutcome> {
  const { runMarketplaceChecks } = proxyActivities<Activities>({
    // an MCP connect (15 s) and tools/list (15 s) at most, with room to spare
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
  });
  // until the checks end, a decision is refused with a clear reason (not "no handler")
  const refused = async (_decision: OperatorDecision): Promise<ReviewOutcome> => {
    throw new Error('The automated checks are still running');
  };
  setHandler(decideReviewUpdate, refused, {
    validator: (_decision: OperatorDecision) => {
      throw new Error('The automated checks are still running; decide once they end');
    },
  });
  setCurrentDetails('Running automated checks (manifest lint, MCP tools/list)');
  try {
    const checks = await runMarketplaceChecks({ reviewId: input.reviewId });
    log.info('marketplace checks done', { reviewId: input.reviewId, passed: checks.passed });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    return { reviewId: input.reviewId, status: 'withdrawn', notes: null, decidedAt: null };
  }
  return awaitOperatorDecision(input);
}
