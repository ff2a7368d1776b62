import path from 'node:path';
import type { Logger } from 'pino';
import { loadDevIdpKeys } from '../auth/dev-idp';
import { makeVersionCurrent } from '../temporal/cluster/current-version';
import { logLineWatcher } from '../temporal/cluster/log-files';
import { ManagedProcess, type ReadyProbe } from '../temporal/cluster/managed-process';
import { runOneShot } from '../temporal/cluster/one-shot';
import { choosePorts } from '../temporal/cluster/ports';
import { httpOk, waitUntil } from '../temporal/cluster/readiness';
import { CLUSTER_TOPOLOGY, PLATFORM_COMMANDS } from '../temporal/cluster/topology';
import { WORKLOADS, type Workload } from '../temporal/task-queues';
import { distBuildId, ensureDistBuilt, loadOrCreateSecrets, platformEnv } from './cluster-platform-env';

/** The platform's own database on the local PostgreSQL, apart from `npm start`'s. */
export const CLUSTER_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/voice_platform_cluster';

export interface PlatformProcessesOptions {
  logger: Logger;
  /** The repository: `dist/` is run from there. */
  repoRoot: string;
  /** secrets.env, the processes' data dir (`platform/`) and logs (`logs/<name>.log`). */
  runDir: string;
  temporal: { address: string; namespace: string; uiUrl: string };
  /** Default CLUSTER_DATABASE_URL. */
  databaseUrl?: string;
  /** Each API's port when free (default 3000 and 3001): one API process each. */
  apiPorts?: number[];
  /** Worker processes per pool (default 1), or per pool by name (pools not named: 1). */
  workersPerPool?: number | Partial<Record<Workload, number>>;
  /** A pool's workers run under `nice -n N` (a benchmark's stand-in for a pool on other machines). */
  niceness?: Partial<Record<Workload, number>>;
  /** How long each process may take to become ready (default 120 s). */
  startTimeoutMs?: number;
}

export interface ApiInstance {
  name: string;
  url: string;
  port: number;
  /** `pid`, `kill(signal)`, `restart()` (until /readyz answers), `stop()`. */
  process: ManagedProcess;
}

export interface PlatformProcesses {
  apis: ApiInstance[];
  /** Each pool's worker processes (`kill`, `restart()` until it polls again, `stop()`). */
  workers: Record<Workload, ManagedProcess[]>;
  adminToken: string;
  secretsFile: string;
  dataDir: string;
  databaseUrl: string;
  deploymentName?: string;
  buildId: string;
  /**
   * Starts one more worker process per pool as another build (a rolling deploy's next version,
   * docs/operations.md "Deploys"): resolves once each polls; stopped with the others.
   */
  startWorkerVersion(buildId: string): Promise<Record<Workload, ManagedProcess[]>>;
  /** Stops the APIs, then the workers. */
  stop(): Promise<void>;
}

/**
 * Starts the platform as production runs it, on the cluster's Temporal: migrations (one-shot), one
 * worker process per pool (`WORKER_TASK_QUEUES`) and two API processes, all from `dist/` (built
 * when missing). Resolves once every worker polls, the running build is the deployment's current
 * version and each API's deep readiness check (a workflow through a worker) passes.
 */
export async function startPlatformProcesses(opts: PlatformProcessesOptions): Promise<PlatformProcesses> {
  const { logger, repoRoot, runDir } = opts;
  const logDir = path.join(runDir, 'logs');
  const timeoutMs = opts.startTimeoutMs ?? 120_000;
  await ensureDistBuilt({ repoRoot, logDir, logger });
  const secrets = loadOrCreateSecrets(runDir);
  const dataDir = path.join(runDir, 'platform');
  await loadDevIdpKeys(dataDir); // made once here, not raced by the two APIs
  const databaseUrl = opts.databaseUrl ?? CLUSTER_DATABASE_URL;
  const deploymentName = deploymentNameFrom(process.env);
  const buildId = distBuildId(repoRoot);
  const env = platformEnv({
    base: process.env,
    secrets,
    dataDir,
    databaseUrl,
    temporal: opts.temporal,
    deploymentName,
    buildId,
  });
  await runOneShot({
    name: CLUSTER_TOPOLOGY.migrate.name,
    command: process.execPath, // node, as the topology's command says, this very one
    args: [PLATFORM_COMMANDS.migrate[1]],
    env,
    cwd: repoRoot,
    logFile: path.join(logDir, `${CLUSTER_TOPOLOGY.migrate.name}.log`),
  });

  const spawnOptions = { repoRoot, logDir, logger, env, timeoutMs };
  const workers = workerProcesses({ ...spawnOptions, perPool: opts.workersPerPool, niceness: opts.niceness });
  const apis = await apiInstances({ ...spawnOptions, preferredPorts: opts.apiPorts });
  const all = [...apis.map((api) => api.process), ...Object.values(workers).flat()];
  const versions: Record<Workload, ManagedProcess[]>[] = [workers];
  const stop = async () => {
    await Promise.all(apis.map((api) => api.process.stop()));
    const everyWorker = versions.flatMap((version) => Object.values(version).flat());
    await Promise.all(everyWorker.map((p) => p.stop()));
  };
  const startWorkerVersion = async (next: string) => {
    const env = { ...spawnOptions.env, WORKER_BUILD_ID: next };
    const started = workerProcesses({ ...spawnOptions, env, suffix: next, niceness: opts.niceness });
    versions.push(started);
    await Promise.all(Object.values(started).flatMap((pool) => pool.map((p) => p.start())));
    return started;
  };
  try {
    const results = await Promise.allSettled(all.map((p) => p.start()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (deploymentName)
      await makeVersionCurrent({ ...opts.temporal, deploymentName, buildId, logger, timeoutMs });
    for (const api of apis) await waitForDeepReadiness(api, secrets.adminToken, timeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    apis,
    workers,
    adminToken: secrets.adminToken,
    secretsFile: secrets.file,
    dataDir,
    databaseUrl,
    deploymentName,
    buildId,
    startWorkerVersion,
    stop,
  };
}

/** The deployment the workers declare: `WORKER_DEPLOYMENT_NAME` (`off`: none), else the queue prefix. */
function deploymentNameFrom(env: NodeJS.ProcessEnv): string | undefined {
  const configured = env.WORKER_DEPLOYMENT_NAME?.trim();
  if (configured === 'off') return undefined;
  return configured || env.TEMPORAL_TASK_QUEUE?.trim() || 'voice-platform';
}

interface SpawnOptions {
  repoRoot: string;
  logDir: string;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** One process per pool (or `perPool`), ready once it logs "worker polling" (its workers run). */
function workerProcesses(
  opts: SpawnOptions & {
    perPool?: PlatformProcessesOptions['workersPerPool'];
    niceness?: PlatformProcessesOptions['niceness'];
    suffix?: string;
  },
): Record<Workload, ManagedProcess[]> {
  const byPool = Object.fromEntries(WORKLOADS.map((pool) => [pool, [] as ManagedProcess[]]));
  for (const { name, pool, workerTaskQueues } of CLUSTER_TOPOLOGY.workers) {
    const count = typeof opts.perPool === 'number' ? opts.perPool : (opts.perPool?.[pool] ?? 1);
    const nice = opts.niceness?.[pool];
    const node = [process.execPath, PLATFORM_COMMANDS.worker[1]];
    const [command, ...args] = nice === undefined ? node : ['nice', '-n', String(nice), ...node];
    for (let i = 1; i <= count; i++) {
      const processName = `${count === 1 ? name : `${name}-${i}`}${opts.suffix ? `-${opts.suffix}` : ''}`;
      byPool[pool]!.push(
        new ManagedProcess({
          name: processName,
          command: command!,
          args,
          cwd: opts.repoRoot,
          env: { ...opts.env, WORKER_TASK_QUEUES: workerTaskQueues },
          logDir: opts.logDir,
          logger: opts.logger,
          stopGraceMs: 15_000,
          ready: ({ exited, logFile, logOffset }: ReadyProbe) => {
            const polling = logLineWatcher({
              file: logFile,
              offset: logOffset,
              pattern: /"msg":"worker polling"/,
            });
            return waitUntil({
              what: processName,
              timeoutMs: opts.timeoutMs,
              exited,
              check: () => (polling() ? null : 'has not logged "worker polling" yet'),
            });
          },
        }),
      );
    }
  }
  return byPool as Record<Workload, ManagedProcess[]>;
}

/** The API processes on free ports (the topology's 3000 and 3001 when free), ready once /readyz answers. */
async function apiInstances(opts: SpawnOptions & { preferredPorts?: number[] }): Promise<ApiInstance[]> {
  const preferred = opts.preferredPorts ?? CLUSTER_TOPOLOGY.apis.map((api) => api.port);
  const ports = await choosePorts({ ip: '127.0.0.1', preferred, fallbackFrom: Math.max(...preferred) + 1 });
  return ports.map((port, i) => {
    const name = CLUSTER_TOPOLOGY.apis[i]?.name ?? `api-${i + 1}`;
    const url = `http://127.0.0.1:${port}`;
    const managed = new ManagedProcess({
      name,
      command: process.execPath,
      args: [PLATFORM_COMMANDS.api[1]],
      cwd: opts.repoRoot,
      env: { ...opts.env, PORT: String(port) },
      logDir: opts.logDir,
      logger: opts.logger,
      stopGraceMs: 15_000,
      ready: ({ exited }: ReadyProbe) =>
        waitUntil({ what: name, timeoutMs: opts.timeoutMs, exited, check: () => httpOk(`${url}/readyz`) }),
    });
    return { name, url, port, process: managed };
  });
}

/** `/readyz?deep=true`: the database, Temporal and a system workflow through a `background` worker. */
function waitForDeepReadiness(api: ApiInstance, adminToken: string, timeoutMs: number): Promise<void> {
  return waitUntil({
    what: `${api.name} deep readiness`,
    timeoutMs,
    intervalMs: 1_000,
    exited: api.process.exited,
    check: () => httpOk(`${api.url}/readyz?deep=true`, { authorization: `Bearer ${adminToken}` }),
  });
}
