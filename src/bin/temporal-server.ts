/**
 * Finds (or builds with Go) the Temporal server, temporal-sql-tool and the Web UI server that
 * `npm run cluster` runs, and prints their directory on stdout; logs go to stderr. CI runs it to warm
 * the cache: `npx tsx src/bin/temporal-server.ts`.
 */
import pino from 'pino';
import { findOrBuildTemporalServer } from '../temporal/cluster/server-build';

async function main(): Promise<void> {
  const logger = pino(
    { name: 'temporal-server', level: process.env.LOG_LEVEL ?? 'info' },
    pino.destination({ dest: 2, sync: true }),
  );
  const binaries = await findOrBuildTemporalServer({ logger });
  process.stdout.write(`${binaries.dir}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
