/**
 * `npm run cluster`: the production topology on this machine, without Docker (docs/cluster.md): a
 * Temporal cluster (frontend, history, matching and worker as four processes on PostgreSQL, and the
 * Web UI), then the platform (migrations, a worker process per pool, two API processes). Prints
 * where everything is; Ctrl-C (SIGINT) or SIGTERM stops it all.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  CLUSTER_DATABASE_URL,
  type PlatformProcesses,
  startPlatformProcesses,
} from '../app/cluster-processes';
import { createLogger, resolveLogFormat } from '../logging/logger';
import { DEFAULT_TEMPORAL_DATABASES, freshTemporalDatabases } from '../temporal/cluster/schema';
import { startTemporalCluster, type TemporalCluster } from '../temporal/cluster/temporal-cluster';

const port = z.coerce.number().int().min(1024).max(32767);
const Flags = z.object({
  'run-dir': z.string().min(1).default('.data/cluster'),
  'port-base': port.default(7233),
  'ui-port': port.default(8080),
  'api-ports': z
    .string()
    .default('3000,3001')
    .transform((v) => v.split(',').map((p) => Number(p.trim())))
    .pipe(z.array(z.number().int().min(1024).max(32767)).min(1)),
  shards: z.coerce.number().int().min(1).max(16384).default(4),
  'workers-per-pool': z.coerce.number().int().min(1).max(16).default(1),
  'temporal-database': z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,50}$/, 'lower-case letters, digits and _')
    .default(DEFAULT_TEMPORAL_DATABASES.default),
  'database-url': z.url().default(CLUSTER_DATABASE_URL),
  fresh: z.boolean().default(false),
});
type Flags = z.infer<typeof Flags>;

const USAGE = `npm run cluster -- [--help] [--fresh] [--port-base 7233] [--ui-port 8080] [--api-ports 3000,3001]
  [--shards 4] [--workers-per-pool 1] [--temporal-database temporal_cluster] [--database-url URL] [--run-dir .data/cluster]`;

function parseFlags(argv: string[]): Flags {
  const names = ['run-dir', 'port-base', 'ui-port', 'api-ports', 'shards', 'workers-per-pool'] as const;
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(names.map((name) => [name, { type: 'string' as const }])),
      'temporal-database': { type: 'string' },
      'database-url': { type: 'string' },
      fresh: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const { help: _, ...flags } = values;
  const parsed = Flags.safeParse(flags);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`--${issue.path.join('.')}: ${issue.message}\n${USAGE}`);
  }
  return parsed.data;
}

/** `--fresh`: new Temporal databases and a new platform database, uniquely named (left behind). */
function databasesFor(flags: Flags) {
  if (!flags.fresh) {
    const name = flags['temporal-database'];
    return {
      temporal: { default: name, visibility: `${name}_visibility` },
      platformUrl: flags['database-url'],
    };
  }
  const temporal = freshTemporalDatabases();
  const platform = new URL(flags['database-url']);
  platform.pathname = `/${temporal.default.replace(/^temporal_cluster/, 'voice_platform_cluster')}`;
  return { temporal, platformUrl: platform.toString() };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const format = resolveLogFormat(undefined, { prettyInTerminal: true });
  const logger = createLogger(process.env.LOG_LEVEL ?? 'info', 'voice-platform-cluster', undefined, format);
  const repoRoot = path.resolve(__dirname, '../..');
  const runDir = path.resolve(repoRoot, flags['run-dir']);
  const databases = databasesFor(flags);
  const started = Date.now();

  let temporal: TemporalCluster | undefined;
  let platform: PlatformProcesses | undefined;
  let stopping: Promise<void> | undefined;
  const stopAll = () => {
    stopping ??= (async () => {
      await platform?.stop();
      await temporal?.stop();
    })();
    return stopping;
  };
  onStopSignal(logger, stopAll);

  temporal = await startTemporalCluster({
    logger,
    runDir,
    portBase: flags['port-base'],
    uiPort: flags['ui-port'],
    numHistoryShards: flags.shards,
    databases: databases.temporal,
  });
  if (stopping) return;
  try {
    platform = await startPlatformProcesses({
      logger,
      repoRoot,
      runDir,
      temporal: { address: temporal.address, namespace: temporal.namespace, uiUrl: temporal.uiUrl },
      databaseUrl: databases.platformUrl,
      apiPorts: flags['api-ports'],
      workersPerPool: flags['workers-per-pool'],
    });
  } catch (error) {
    await temporal.stop();
    throw error;
  }
  process.stdout.write(summary({ temporal, platform, repoRoot, runDir, startedMs: Date.now() - started }));
}

function summary(opts: {
  temporal: TemporalCluster;
  platform: PlatformProcesses;
  repoRoot: string;
  runDir: string;
  startedMs: number;
}): string {
  const { temporal, platform } = opts;
  const rel = (file: string) => path.relative(opts.repoRoot, file) || '.';
  const pids = (entries: [string, { pid?: number }[]][]) =>
    entries.map(([name, ps]) => `${name} ${ps.map((p) => p.pid ?? '-').join('/')}`).join(', ');
  const services = Object.entries(temporal.services).map(
    ([name, p]) => [name, [p]] as [string, { pid?: number }[]],
  );
  return [
    '',
    ...platform.apis.map((api) => `  ${api.name.padEnd(17)}${api.url}   (pid ${api.process.pid})`),
    `  Temporal         ${temporal.address}   (namespace ${temporal.namespace}; HTTP ${temporal.httpUrl})`,
    `  Temporal Web UI  ${temporal.uiUrl}`,
    `  Temporal pids    ${pids(services)}`,
    `  Worker pids      ${pids(Object.entries(platform.workers))}`,
    `  Databases        ${temporal.databases.default}, ${temporal.databases.visibility}, ${new URL(platform.databaseUrl).pathname.slice(1)}`,
    `  Worker version   ${platform.deploymentName ?? '(versioning off)'} ${platform.buildId}`,
    `  Logs             ${rel(path.join(opts.runDir, 'logs'))}/`,
    `  Deep readiness   . ${rel(platform.secretsFile)} && curl -H "Authorization: Bearer $ADMIN_TOKEN" '${platform.apis[0]?.url}/readyz?deep=true'`,
    `  Console token    DATA_DIR=${rel(platform.dataDir)} npm run -s token -- you@example.com`,
    '',
    `  Ready in ${(opts.startedMs / 1000).toFixed(1)} s. Ctrl-C stops everything.`,
    '',
    '',
  ].join('\n');
}

/**
 * SIGINT/SIGTERM: stop everything, then exit 0. Another signal a second or more later exits at once
 * (the exit hook SIGKILLs the groups). One Ctrl-C under `npm run` arrives twice within
 * milliseconds (from the terminal, and relayed by tsx): that is one signal.
 */
function onStopSignal(logger: ReturnType<typeof createLogger>, stopAll: () => Promise<void>): void {
  let firstAt: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (firstAt !== undefined) {
      if (Date.now() - firstAt < 1_000) return;
      logger.warn({ signal }, 'second signal: killing everything');
      process.exit(1);
    }
    firstAt = Date.now();
    logger.info({ signal }, 'stopping the cluster (a second Ctrl-C kills it at once)');
    stopAll().then(
      () => {
        logger.info('the cluster has stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'stopping the cluster failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
