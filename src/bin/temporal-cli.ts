/**
 * Finds (or builds with Go) the Temporal CLI and prints its path on stdout; logs go to stderr.
 * CI runs it to warm the cache: `npx tsx src/bin/temporal-cli.ts`.
 */
import pino from 'pino';
import { findTemporalCli } from '../temporal/cli';

async function main(): Promise<void> {
  const logger = pino(
    { name: 'temporal-cli', level: process.env.LOG_LEVEL ?? 'info' },
    pino.destination({ dest: 2, sync: true }),
  );
  const cliPath = await findTemporalCli({ logger });
  if (!cliPath) {
    process.stderr.write(
      'No Temporal CLI found: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or install Go to build it.\n',
    );
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`${cliPath}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
