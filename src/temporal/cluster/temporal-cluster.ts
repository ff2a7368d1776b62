import path from 'node:path';
import type { Logger } from 'pino';
import { hostPort } from '../dev-server-ports';
import { SEARCH_ATTRIBUTES, type SearchAttributeTypeName } from '../search-attributes';
import { logLineWatcher } from './log-files';
import { ManagedProcess, type ReadyProbe } from './managed-process';
import { prepareNamespace } from './namespace';
import { allTemporalPorts, choosePorts, chooseTemporalPorts, type TemporalPorts } from './ports';
import { grpcHealth, httpOk, TEMPORAL_HEALTH_SERVICES, waitUntil } from './readiness';
import {
  DEFAULT_TEMPORAL_DATABASES,
  LOCAL_POSTGRES,
  prepareTemporalDatabases,
  recentMembers,
} from './schema';
import { findOrBuildTemporalServer, type TemporalServerBinaries } from './server-build';
import {
  type PostgresTarget,
  SERVER_CONFIG_ENV,
  type ServerConfigInput,
  type TemporalDatabases,
  writeClusterConfigs,
} from './server-config';
import { CLUSTER_TOPOLOGY, TEMPORAL_SERVICES, type TemporalServiceName } from './topology';

export interface TemporalClusterOptions {
  logger: Logger;
  /** Config files go in `<runDir>/temporal/`, each process's output in `<runDir>/logs/<name>.log`. */
  runDir: string;
  /** Default 127.0.0.1: every service binds it. */
  ip?: string;
  /** The frontend's gRPC port when free (default 7233); the other ports follow Temporal's layout. */
  portBase?: number;
  /** The Web UI's port when free (default 8080). */
  uiPort?: number;
  /** Default 4. Fixed when the persistence database is set up: fresh databases to change it. */
  numHistoryShards?: number;
  postgres?: PostgresTarget;
  /** Default temporal_cluster and temporal_cluster_visibility (`freshTemporalDatabases()` for tests). */
  databases?: TemporalDatabases;
  namespace?: string;
  retentionDays?: number;
  searchAttributes?: Record<string, SearchAttributeTypeName>;
  logLevel?: ServerConfigInput['logLevel'];
  /** Default: found or built by `findOrBuildTemporalServer`. */
  binaries?: TemporalServerBinaries;
  /** How long each service may take to become ready (default 120 s). */
  startTimeoutMs?: number;
}

export interface TemporalCluster {
  /** host:port of the frontend's gRPC API. */
  address: string;
  /** The frontend's HTTP API. */
  httpUrl: string;
  uiUrl: string;
  namespace: string;
  databases: TemporalDatabases;
  ports: TemporalPorts & { ui: number };
  /** Each service's process: `pid`, `kill(signal)`, `restart()` (until it serves again), `stop()`. */
  services: Record<TemporalServiceName, ManagedProcess>;
  ui: ManagedProcess;
  /** Stops the UI, then the four services. */
  stop(): Promise<void>;
}

/**
 * Starts a Temporal cluster as the production topology runs it: the schemas set up or updated on
 * PostgreSQL, frontend, history, matching and worker as four processes, the namespace with the
 * platform's search attributes, and the Web UI. On failure whatever started is stopped again.
 */
export async function startTemporalCluster(opts: TemporalClusterOptions): Promise<TemporalCluster> {
  const { logger } = opts;
  const ip = opts.ip ?? '127.0.0.1';
  const started = Date.now();
  const binaries = opts.binaries ?? (await findOrBuildTemporalServer({ logger }));
  const ports = await chooseTemporalPorts({
    ip,
    base: opts.portBase ?? CLUSTER_TOPOLOGY.temporal.frontendPort,
  });
  const [uiPort] = (await choosePorts({
    ip,
    preferred: [opts.uiPort ?? CLUSTER_TOPOLOGY.ui.port],
    fallbackFrom: (opts.uiPort ?? CLUSTER_TOPOLOGY.ui.port) + 1,
    taken: new Set(allTemporalPorts(ports)),
  })) as [number];
  const postgres = opts.postgres ?? LOCAL_POSTGRES;
  const databases = opts.databases ?? DEFAULT_TEMPORAL_DATABASES;
  const logDir = path.join(opts.runDir, 'logs');
  const temporalDir = path.join(opts.runDir, 'temporal');

  await prepareTemporalDatabases({
    sqlTool: binaries.sqlTool,
    postgres,
    databases,
    logFile: path.join(logDir, 'temporal-schema.log'),
    logger,
  });
  const configs = await writeClusterConfigs({
    temporalDir,
    server: {
      ip,
      ports,
      postgres,
      databases,
      numHistoryShards: opts.numHistoryShards ?? 4,
      logLevel: opts.logLevel ?? 'info',
    },
    ui: { port: uiPort },
  });

  const timeoutMs = opts.startTimeoutMs ?? 120_000;
  const spawning = { binaries, ip, ports, logDir, logger, timeoutMs };
  const services = serviceProcesses({ ...spawning, configDirs: configs.serviceConfigDirs });
  const uiUrl = `http://${hostPort(ip, uiPort)}`;
  const ui = uiProcess({ ...spawning, configDir: configs.uiConfigDir, uiUrl });
  const stop = async () => {
    await ui.stop();
    await Promise.all(Object.values(services).map((p) => p.stop()));
  };

  const address = hostPort(ip, ports.frontend.grpc);
  const namespace = opts.namespace ?? CLUSTER_TOPOLOGY.temporal.namespace.namespace;
  try {
    await startServices({ services, postgres, database: databases.default, logger });
    const namespaceReady = prepareNamespace({
      address,
      namespace,
      retentionDays: opts.retentionDays ?? CLUSTER_TOPOLOGY.temporal.namespace.retentionDays,
      searchAttributes: opts.searchAttributes ?? SEARCH_ATTRIBUTES,
      logger,
      timeoutMs,
    });
    const uiReady = ui.start();
    await Promise.all([namespaceReady, uiReady]);
  } catch (error) {
    await stop();
    throw error;
  }
  logger.info({ address, uiUrl, startupMs: Date.now() - started }, 'Temporal cluster ready');
  return {
    address,
    httpUrl: `http://${hostPort(ip, ports.frontend.http ?? 0)}`,
    uiUrl,
    namespace,
    databases,
    ports: { ...ports, ui: uiPort },
    services,
    ui,
    stop,
  };
}

interface Spawning {
  binaries: TemporalServerBinaries;
  ip: string;
  ports: TemporalPorts;
  logDir: string;
  logger: Logger;
  timeoutMs: number;
}

/** The four services' processes (not started yet). */
function serviceProcesses(opts: Spawning & { configDirs: Record<TemporalServiceName, string> }) {
  const processes = TEMPORAL_SERVICES.map((service) => {
    const managed = new ManagedProcess({
      name: `temporal-${service}`,
      command: opts.binaries.server,
      args: serverArgs(opts.configDirs[service], service),
      logDir: opts.logDir,
      logger: opts.logger,
      ready: serviceReadiness({
        service,
        address: hostPort(opts.ip, opts.ports[service].grpc),
        timeoutMs: opts.timeoutMs,
      }),
      stopGraceMs: 15_000,
    });
    return [service, managed] as const;
  });
  return Object.fromEntries(processes) as Record<TemporalServiceName, ManagedProcess>;
}

/** The Web UI server's process, ready once its page answers. */
function uiProcess(opts: Spawning & { configDir: string; uiUrl: string }): ManagedProcess {
  return new ManagedProcess({
    name: 'temporal-ui',
    command: opts.binaries.uiServer,
    args: ['--root', opts.configDir, '--config', '.', '--env', SERVER_CONFIG_ENV, 'start'],
    logDir: opts.logDir,
    logger: opts.logger,
    ready: ({ exited }) =>
      waitUntil({ what: 'Web UI', timeoutMs: opts.timeoutMs, exited, check: () => httpOk(opts.uiUrl) }),
  });
}

/** `temporal-server` reads `<configDir>/cluster.yaml` and runs one service. */
function serverArgs(configDir: string, service: TemporalServiceName): string[] {
  return [
    '--root',
    configDir,
    '--config',
    '.',
    '--env',
    SERVER_CONFIG_ENV,
    '--allow-no-auth',
    'start',
    '--service',
    service,
  ];
}

/**
 * Ready when it serves: frontend, history and matching by their gRPC health (history once it owns
 * its shards); the worker service, which serves no gRPC, once it logs that it has started.
 */
function serviceReadiness(opts: { service: TemporalServiceName; address: string; timeoutMs: number }) {
  return ({ exited, logFile, logOffset }: ReadyProbe) => {
    const what = `temporal ${opts.service}`;
    if (opts.service === 'worker') {
      const started = logLineWatcher({ file: logFile, offset: logOffset, pattern: /worker service started/ });
      return waitUntil({
        what,
        timeoutMs: opts.timeoutMs,
        exited,
        check: () => (started() ? null : 'has not logged "worker service started" yet'),
      });
    }
    const healthName = TEMPORAL_HEALTH_SERVICES[opts.service];
    return waitUntil({
      what,
      timeoutMs: opts.timeoutMs,
      exited,
      check: () => grpcHealth(opts.address, healthName),
    });
  };
}

/**
 * Starts the four services. Each writes the cluster's metadata record when it is missing or differs
 * from its config, and two doing so at once make one fail: so the frontend starts first. But a
 * service that starts alone waits (up to membership's maxJoinDuration) for members that were alive
 * seconds ago: when the last cluster on this database stopped that recently, all four start at
 * once (its record is there), and one that exits while starting is started again.
 */
async function startServices(opts: {
  services: Record<TemporalServiceName, ManagedProcess>;
  postgres: PostgresTarget;
  database: string;
  logger: Logger;
}): Promise<void> {
  const { frontend, history, matching, worker } = opts.services;
  const recent = await recentMembers({ postgres: opts.postgres, database: opts.database, withinSeconds: 30 });
  if (recent > 0) {
    opts.logger.info(
      { recentMembers: recent },
      'starting the Temporal services together (a cluster just ran)',
    );
    return startAll([frontend, history, matching, worker], opts.logger);
  }
  await frontend.start();
  await startAll([history, matching, worker], opts.logger);
}

/**
 * Starts them all at once, each again once when it exits while starting; when one still fails, the
 * others are stopped and its failure thrown.
 */
async function startAll(processes: ManagedProcess[], logger: Logger): Promise<void> {
  const startOnceMore = async (p: ManagedProcess) => {
    try {
      await p.start();
    } catch (error) {
      if (!/: the process (exited|killed)/.test((error as Error).message)) throw error;
      logger.warn({ name: p.name, err: (error as Error).message.split('\n')[0] }, 'starting it again');
      await p.start();
    }
  };
  const results = await Promise.allSettled(processes.map(startOnceMore));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(processes.map((p) => p.stop()));
    throw failed.reason;
  }
}
