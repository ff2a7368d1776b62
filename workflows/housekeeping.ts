import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { deleteExpiredOAuthAuthorizations } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

export interface HousekeepingResult {
  oauthAuthorizationsDeleted: number;
}

/** Started every hour by the `housekeeping` schedule (see src/temporal/schedules.ts). */
export async function housekeepingWorkflow(): Promise<HousekeepingResult> {
  return { oauthAuthorizationsDeleted: await deleteExpiredOAuthAuthorizations() };
}
