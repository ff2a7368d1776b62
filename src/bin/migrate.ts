import { entities } from '../app/entities';
import { DEFAULT_DATABASE_URL } from '../config/env';
import { ensureDatabaseExists, initOrm, runMigrations } from '../db/orm';
import { loadConfigOrExit } from './config';

/** Applies pending migrations (creating the database first outside production). */
async function main(): Promise<void> {
  const { config, logger } = loadConfigOrExit('migrate');
  const url = config.database.url ?? DEFAULT_DATABASE_URL;
  if (!config.isProduction) await ensureDatabaseExists(url, logger);
  const orm = await initOrm({ url, poolMax: 2, entities });
  try {
    const applied = await runMigrations(orm, logger);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await orm.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
