import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { deleteExpiredOAuthAuthorizations, deleteExpiredTurnRecordings } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

export interface HousekeepingResult {
  oauthAuthorizationsDeleted: number;
  /** Turn recordings past RECORDING_RETENTION_DAYS (docs/voice-stream.md "Recordings"). */
  turnRecordingsDeleted?: number;
}

/** Started every hour by the `housekeeping` schedule (see src/temporal/schedules.ts). */
export async function housekeepingWorkflow(): Promise<HousekeepingResult> {
  const oauthAuthorizationsDeleted = await deleteExpiredOAuthAuthorizations();
  // a run started before recordings existed replays without this step (docs/architecture.md
  // "Changing a running workflow")
  if (!patched('delete-expired-recordings')) return { oauthAuthorizationsDeleted };
  return { oauthAuthorizationsDeleted, turnRecordingsDeleted: await deleteExpiredTurnRecordings() };
}
