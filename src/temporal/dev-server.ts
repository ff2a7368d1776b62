import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import type { Logger } from 'pino';
import { findTemporalCli, temporalCliCacheDir } from './cli';
import { TEMPORAL_DYNAMIC_CONFIG } from './cluster/dynamic-config';
import { hostPort, reservePorts } from './dev-server-ports';
import { registerSearchAttributes } from './register-search-attributes';
import type { SearchAttributeTypeName } from './search-attributes';

export interface DevServerOptions {
  logger: Logger;
  /** Persistent SQLite file; omit for in-memory. */
  dbFilename?: string;
  /** 0 or undefined = pick a free port. */
  port?: number;
  /** 0 or undefined = pick a free port. The UI is always on. */
  uiPort?: number;
  namespace: string;
  searchAttributes: Record<string, SearchAttributeTypeName>;
  /** Default 127.0.0.1. */
  ip?: string;
}

export interface DevServer {
  /** host:port of the gRPC frontend. */
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

const SDK_SEARCH_ATTRIBUTE_TYPES: Record<SearchAttributeTypeName, SearchAttributeType> = {
  Keyword: 'KEYWORD',
  Text: 'TEXT',
  Int: 'INT',
  Double: 'DOUBLE',
  Bool: 'BOOL',
  Datetime: 'DATETIME',
  KeywordList: 'KEYWORD_LIST',
};

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/**
 * Starts a Temporal dev server (SQLite, UI on) with the namespace and search attributes ready to use.
 * Uses the CLI found by `findTemporalCli`, or the SDK's cached download when there is none.
 */
export async function startTemporalDevServer(opts: DevServerOptions): Promise<DevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  const cli = await findTemporalCli({ logger: opts.logger });
  for (let attempt = 1; ; attempt++) {
    const [port, uiPort, httpPort, metricsPort] = await reservePorts(ip, [
      opts.port || 0,
      opts.uiPort || 0,
      0,
      0,
    ]);
    const ports = { port, uiPort, httpPort, metricsPort };
    try {
      return await (cli ? spawnDevServer(cli, ip, ports, opts) : startWithSdkDownload(ip, ports, opts));
    } catch (err) {
      // The ports are free when picked but released before the server binds them, and the server picks
      // its internal service ports itself: another process (or the server's own picks) can take one in
      // between. Start again on freshly picked ports.
      if (attempt >= PORT_RACE_ATTEMPTS || !isPortRace(err)) throw err;
      opts.logger.warn(
        { attempt, ports },
        'Temporal dev server lost a port race; starting it again on new ports',
      );
    }
  }
}

const PORT_RACE_ATTEMPTS = 4;

/** The server exited because a port it was given, or picked itself, was taken before it could bind it. */
export function isPortRace(err: unknown): boolean {
  return err instanceof Error && /address already in use|EADDRINUSE/i.test(err.message);
}

export interface Ports {
  port: number;
  uiPort: number;
  httpPort: number;
  metricsPort: number;
}

/**
 * `temporal server start-dev`'s arguments: ports, namespace, quiet logs, search attributes, and the
 * cluster's dynamic config (src/temporal/cluster/dynamic-config.ts), so it behaves as the cluster.
 */
export function devServerArgs(ip: string, ports: Ports, opts: DevServerOptions): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(ports.port),
    '--ui-port',
    String(ports.uiPort),
    '--http-port',
    String(ports.httpPort),
    '--metrics-port',
    String(ports.metricsPort),
    '--namespace',
    opts.namespace,
    '--log-level',
    'warn',
    ...Object.entries(TEMPORAL_DYNAMIC_CONFIG).flatMap(([key, { value }]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
    ...(opts.dbFilename ? ['--db-filename', opts.dbFilename] : []),
    ...Object.entries(opts.searchAttributes).flatMap(([name, type]) => [
      '--search-attribute',
      `${name}=${type}`,
    ]),
  ];
}

async function spawnDevServer(
  cli: string,
  ip: string,
  ports: Ports,
  opts: DevServerOptions,
): Promise<DevServer> {
  const { logger } = opts;
  const args = devServerArgs(ip, ports, opts);
  const started = Date.now();
  logger.debug({ cli, args }, 'Starting Temporal dev server');
  const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const watchdog = spawnWatchdog(child);

  // 'close' (not 'exit') so that all output has been read; 'error' covers a failed spawn.
  let exitReason: string | undefined;
  const exited = new Promise<string>((resolve) => {
    const done = (reason: string) => {
      exitReason ??= reason;
      process.off('exit', killOnExit);
      watchdog?.kill();
      resolve(exitReason);
    };
    child.once('close', (code, signal) => done(`exited with ${signal ?? code}`));
    child.once('error', (err) => done(`failed to run ${cli}: ${err.message}`));
  });

  // Startup and shutdown produce expected warnings (dial errors, cancelled polls): log them at debug only.
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  const tail: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 30) tail.shift();
      if (phase === 'running' && /\blevel=(WARN|ERROR|FATAL|PANIC)\b/i.test(line))
        logger.warn(`temporal: ${line}`);
      else logger.debug(`temporal: ${line}`);
    });
  }

  const address = hostPort(ip, ports.port);
  const stop = async () => {
    phase = 'stopping';
    if (exitReason) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  try {
    await waitUntilReady(address, opts.namespace, opts.searchAttributes, exited, logger);
  } catch (err) {
    await stop();
    throw new Error(`Temporal dev server did not start: ${(err as Error).message}\n${tail.join('\n')}`);
  }
  phase = 'running';
  const uiUrl = `http://${hostPort(ip, ports.uiPort)}`;
  logger.info(
    { address, uiUrl, startupMs: Date.now() - started, serverPid: child.pid },
    'Temporal dev server ready',
  );
  return { address, uiUrl, stop };
}

/**
 * A tiny `sh` loop that SIGKILLs the server once this process is gone, covering deaths the 'exit' hook
 * can't see (SIGKILL, unhandled signals). POSIX only.
 */
function spawnWatchdog(child: ChildProcess): ChildProcess | undefined {
  if (process.platform === 'win32' || child.pid === undefined) return undefined;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null`;
  const watchdog = spawn('/bin/sh', ['-c', script], { stdio: 'ignore' });
  watchdog.on('error', () => {}); // best effort
  watchdog.unref();
  return watchdog;
}

async function startWithSdkDownload(ip: string, ports: Ports, opts: DevServerOptions): Promise<DevServer> {
  const { logger } = opts;
  logger.info('No Temporal CLI found; starting the dev server from the Temporal SDK download');
  // Loaded lazily: @temporalio/testing pulls in the native worker bridge.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const started = Date.now();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: {
        type: 'cached-download',
        downloadDir: path.join(path.dirname(temporalCliCacheDir()), 'temporal-sdk-download'),
      },
      ip,
      port: ports.port,
      ui: true,
      uiPort: ports.uiPort,
      dbFilename: opts.dbFilename,
      namespace: opts.namespace,
      searchAttributes: Object.entries(opts.searchAttributes).map(([name, type]) => ({
        name,
        type: SDK_SEARCH_ATTRIBUTE_TYPES[type],
      })),
      extraArgs: ['--http-port', String(ports.httpPort), '--metrics-port', String(ports.metricsPort)],
    },
  });
  try {
    await waitUntilReady(env.address, opts.namespace, opts.searchAttributes, new Promise(() => {}), logger);
  } catch (err) {
    await env.teardown();
    throw err;
  }
  const uiUrl = `http://${hostPort(ip, ports.uiPort)}`;
  logger.info({ address: env.address, uiUrl, startupMs: Date.now() - started }, 'Temporal dev server ready');
  return { address: env.address, uiUrl, stop: () => env.teardown() };
}

/**
 * Polls until the frontend answers and the search attributes are visible in the namespace; gives up
 * early when `exited` resolves (with the reason). Attributes the `--search-attribute` flags did not
 * create (a dev database from before an attribute was added: the flags apply to a new database only)
 * are added through the operator API.
 */
async function waitUntilReady(
  address: string,
  namespace: string,
  searchAttributes: Record<string, SearchAttributeTypeName>,
  exited: Promise<string>,
  logger: Logger,
): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let notReady = 'no answer';
  while (Date.now() < deadline) {
    // A fresh lazy connection per attempt: a failed connect stays failed, and it must always be closed.
    // No gRPC retry interceptor: this loop retries, and a retry timer left pending by the SDK's
    // interceptor would fire on the closed channel and throw outside any promise.
    const connection = Connection.lazy({ address, connectTimeout: '2s', interceptors: [] });
    const outcome = await Promise.race([
      probe(connection, namespace, searchAttributes, logger),
      exited.then((reason) => ({ exited: reason })),
    ]).finally(() => connection.close());
    if (outcome === null) return;
    if (typeof outcome === 'object') throw new Error(outcome.exited);
    notReady = outcome;
    await sleep(200);
  }
  throw new Error(`not ready after ${STARTUP_TIMEOUT_MS / 1000}s: ${notReady}`);
}

/** null when ready, otherwise what is not ready yet. */
async function probe(
  connection: Connection,
  namespace: string,
  searchAttributes: Record<string, SearchAttributeTypeName>,
  logger: Logger,
): Promise<string | null> {
  try {
    await connection.ensureConnected(); // calls getSystemInfo
    const { customAttributes } = await connection.withDeadline(Date.now() + 2_000, () =>
      connection.operatorService.listSearchAttributes({ namespace }),
    );
    const missing = Object.keys(searchAttributes).filter((name) => !(name in customAttributes));
    if (missing.length === 0) return null;
    await connection.withDeadline(Date.now() + 5_000, () =>
      registerSearchAttributes(
        connection,
        namespace,
        Object.fromEntries(missing.map((name) => [name, searchAttributes[name]])),
        logger,
      ),
    );
    return `search attributes not registered yet: ${missing.join(', ')}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
