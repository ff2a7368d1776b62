import { deleteExpiredAuthorizations } from '../src/oauth/authorization.service';
import { deleteExpiredRecordings } from '../src/sessions/stream/recordings';
import type { ActivityDeps } from './deps';

export function createHousekeepingActivities(deps: ActivityDeps) {
  return {
    /** Removes OAuth authorizations that expired unused (abandoned consent screens). */
    async deleteExpiredOAuthAuthorizations(): Promise<number> {
      const deleted = await deleteExpiredAuthorizations(deps);
      if (deleted > 0) deps.logger.info({ deleted }, 'deleted expired OAuth authorizations');
      return deleted;
    },
    /** Removes turn recordings older than RECORDING_RETENTION_DAYS. */
    async deleteExpiredTurnRecordings(): Promise<number> {
      const deleted = await deleteExpiredRecordings(deps);
      if (deleted > 0) deps.logger.info({ deleted }, 'deleted expired turn recordings');
      return deleted;
    },
  };
}
