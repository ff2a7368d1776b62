import { Client } from 'pg';
import { entities } from '../../src/app/entities';
import { ensureDatabaseExists, initOrm, runMigrations } from '../../src/db/orm';
import { createLogger } from '../../src/logging/logger';
import { databaseUrl, testServerUrl } from './env';

/**
 * A separate, migrated database for a test that runs its own workers and dispatchers, so they never
 * share an outbox with the run's worker.
 */
export async function createIsolatedDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vp_${label}_${Date.now().toString(36)}_${process.pid}`;
  const url = databaseUrl(name);
  const logger = createLogger('silent');
  await ensureDatabaseExists(url, logger);
  const orm = await initOrm({ url, poolMax: 2, entities });
  try {
    await runMigrations(orm, logger);
  } finally {
    await orm.close();
  }
  return {
    url,
    async drop() {
      const admin = new Client({ connectionString: testServerUrl() });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}
