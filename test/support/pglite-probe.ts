/**
 * Run by test/embedded-postgres.test.ts in a real Node process (PGlite's WASM loader needs dynamic
 * import, which jest's module VM lacks). Prints one JSON line with what it observed.
 */

import { Account } from '../../src/accounts/account.entity';
import { entities } from '../../src/app/entities';
import { isPostgresReachable, startEmbeddedPostgres } from '../../src/db/embedded-postgres';
import { initOrm, runMigrations } from '../../src/db/orm';
import { createLogger } from '../../src/logging/logger';

async function main(dataDir: string): Promise<void> {
  const logger = createLogger('silent');
  const first = await startEmbeddedPostgres({ dataDir, logger });
  const reachable = await isPostgresReachable(first.url);
  let orm = await initOrm({ url: first.url, poolMax: first.maxConnections, entities });
  const firstMigrations = await runMigrations(orm, logger, { lock: first.maxConnections > 1 });
  const em = orm.em.fork();
  em.create(Account, { issuer: 'iss', subject: 'sub', plan: 'free' });
  await em.flush();
  await orm.close();
  await first.stop();

  const second = await startEmbeddedPostgres({ dataDir, logger });
  orm = await initOrm({ url: second.url, poolMax: second.maxConnections, entities });
  const secondMigrations = await runMigrations(orm, logger, { lock: false });
  const accounts = await orm.em.fork().count(Account, { issuer: 'iss' });
  await orm.close();
  await second.stop();
  const reachableAfterStop = await isPostgresReachable(second.url, 500);
  console.log(
    JSON.stringify({
      reachable,
      firstMigrations,
      secondMigrations,
      accounts,
      reachableAfterStop,
      url: first.url,
    }),
  );
}

main(process.argv[2]).catch((error) => {
  console.error(error);
  process.exit(1);
});
