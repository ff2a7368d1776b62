import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { deleteExpiredOAuthAuthorizations, deleteExpiredTurnRecordings, deleteExpiredIdempotencyKeys } =
  proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3 },
  });

export interface HousekeepingResult {
  oauthAuthorizationsDeleted: number;
  /** Turn recordings past RECORDING_RETENTION_DAYS (docs/voice-stream.md "Recordings"). */
  turnRecordingsDeleted?: number;
  /** Idempotency keys older than 24 hours (docs/api-contract.md "Idempotent requests"). */
  idempotencyKeysDeleted?: number;
}

/** Started every hour by the `housekeeping` schedule (see src/temporal/schedules.ts). */
export async function housekeepingWorkflow(): Promise<HousekeepingResult> {
  const oauthAuthorizationsDeleted = await deleteExpiredOAuthAuthorizations();
  // a run started before recordings existed replays without this step (docs/architecture.md
  // "Changing a running workflow")
  if (!patched('delete-expired-recordings')) return { oauthAuthorizationsDeleted };
  const turnRecordingsDeleted = await deleteExpiredTurnRecordings();
  // likewise a run started before idempotency keys existed
  if (!patched('delete-expired-idempotency-keys'))
    return { oauthAuthorizationsDeleted, turnRecordingsDeleted };
  return {
    oauthAuthorizationsDeleted,
    turnRecordingsDeleted,
    idempotencyKeysDeleted: await deleteExpiredIdempotencyKeys(),
  };
}
