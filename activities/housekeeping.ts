import { deleteExpiredAuthorizations } from '../src/oauth/authorization.service';
import type { ActivityDeps } from './deps';

export function createHousekeepingActivities(deps: ActivityDeps) {
  return {
    /** Removes OAuth authorizations that expired unused (abandoned consent screens). */
    async deleteExpiredOAuthAuthorizations(): Promise<number> {
      const deleted = await deleteExpiredAuthorizations(deps);
      if (deleted > 0) deps.logger.info({ deleted }, 'deleted expired OAuth authorizations');
      return deleted;
    },
  };
}
