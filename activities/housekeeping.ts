import { deleteExpiredIdempotencyKeys } from '../src/idempotency/idempotency.service';
import { deleteExpiredAuthorizations } from '../src/oauth/authorization.service';
import { deleteExpiredRecordings } from '../src/sessions/stream/recordings';
import { deleteExpiredCallRecordings } from '../src/telephony/recordings/call-recordings';
import type { ActivityDeps } from './deps';

export function createHousekeepingActivities(deps: ActivityDeps) {
  return {
    /** Removes OAuth authorizations that expired unused (abandoned consent screens). */
    async deleteExpiredOAuthAuthorizations(): Promise<number> {
      const deleted = await deleteExpiredAuthorizations(deps);
      if (deleted > 0) deps.logger.info({ deleted }, 'deleted expired OAuth authorizations');
      return deleted;
    },
    /** Removes turn recordings and call recordings (their chunks) older than RECORDING_RETENTION_DAYS. */
    async deleteExpiredTurnRecordings(): Promise<number> {
      const turns = await deleteExpiredRecordings(deps);
      const callChunks = await deleteExpiredCallRecordings(deps);
      if (turns + callChunks > 0) deps.logger.info({ turns, callChunks }, 'deleted expired recordings');
      return turns + callChunks;
    },
    /** Removes idempotency keys older than 24 hours (docs/api-contract.md "Idempotent requests"). */
    async deleteExpiredIdempotencyKeys(): Promise<number> {
      const deleted = await deleteExpiredIdempotencyKeys(deps);
      if (deleted > 0) deps.logger.info({ deleted }, 'deleted expired idempotency keys');
      return deleted;
    },
  };
}
