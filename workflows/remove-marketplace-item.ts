import {
  condition,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RemovalOutcome, RemovalWorkflowInput } from '../src/marketplace/removal/removal-types';
import { removalStateQuery, restoreItemSignal } from './messages';

/**
 * An item's removal (workflow id `remove-<item id>-<n>`): existing installations keep working while
 * a durable timer runs until `removesAt` (MARKETPLACE_REMOVAL_GRACE_DAYS after the request). A
 * restore within that time ends it (the `restore` signal, or found by the activity if the signal
 * was lost); otherwise the activity marks the item and its installations `removed`, after which
 * running the item answers 410, and reviews still open for it are withdrawn.
 */
export async function removeMarketplaceItemWorkflow(input: RemovalWorkflowInput): Promise<RemovalOutcome> {
  const { completeMarketplaceRemoval } = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  let restored = false;
  const state = { status: 'waiting' as 'waiting' | 'removed' | 'restored', removesAt: input.removesAt };
  setHandler(restoreItemSignal, () => {
    restored = true;
  });
  setHandler(removalStateQuery, () => state);
  setCurrentDetails(
    `Existing installations keep working until ${input.removesAt}; restore undoes the removal`,
  );
  const graceMs = Math.max(Date.parse(input.removesAt) - Date.now(), 1);
  if (await condition(() => restored, graceMs)) {
    state.status = 'restored';
    setCurrentDetails('Restored by the publisher');
    return { removalId: input.removalId, status: 'restored', installationsRemoved: 0, withdrawnReviews: [] };
  }
  const outcome = await completeMarketplaceRemoval({ removalId: input.removalId });
  for (const reviewId of outcome.withdrawnReviews) {
    try {
      await getExternalWorkflowHandle(reviewId).cancel();
    } catch (error) {
      log.info('withdrawn review already closed', { reviewId, error: String(error) });
    }
  }
  state.status = outcome.status === 'restored' ? 'restored' : 'removed';
  setCurrentDetails(
    outcome.status === 'removed'
      ? `Removed: ${outcome.installationsRemoved} installations marked removed`
      : 'Restored by the publisher',
  );
  return outcome;
}
