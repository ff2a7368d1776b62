import type { ActivityDeps } from './deps';

export function createSystemActivities({ orm }: ActivityDeps) {
  return {
    /** Reads the database clock: proves the worker reaches the same database as the API. */
    async checkDatabase(): Promise<{ ok: boolean; serverTime: string }> {
      const result = await orm.em.getConnection().execute<{ now: Date }[]>('select now() as now');
      return { ok: true, serverTime: new Date(result[0].now).toISOString() };
    },
  };
}
