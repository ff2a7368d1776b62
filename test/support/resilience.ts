import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createOutboxHandlers } from '../../src/app/outbox-handlers';
import { workerRegistry } from '../../src/app/worker-registry';
import { EventDispatcher } from '../../src/events/dispatcher';
import { createLogger } from '../../src/logging/logger';
import { startTemporalDevServer } from '../../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { WORKLOADS } from '../../src/temporal/task-queues';
import { createWorkerPools } from '../../src/temporal/worker';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY } from './env';
import { createIsolatedDatabase } from './isolated-db';
import { startTestApp, type TestApp } from './test-app';

const ROOT = path.resolve(__dirname, '../..');

/** `node --import tsx`, not the tsx wrapper, so the pid is the worker itself and SIGKILL kills it. */
export function spawnWorker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/bin/worker.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Sends `signal` and waits for the process to exit. */
export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/** The environment of a worker process beside a test app with `env` (same database and queue). */
export function workerProcessEnv(env: Record<string, string>, label: string): Record<string, string> {
  return {
    ...env,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), `vp-${label}-`)),
    LOG_LEVEL: 'error',
  };
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

export interface OutageRig {
  app: TestApp;
  /** Stops the Temporal server (its SQLite file stays). */
  stopTemporal(): Promise<void>;
  /** Starts it again on the same ports and file. */
  startTemporal(): Promise<void>;
  /** Starts an in-process worker on the rig's queue; returns its stop function. */
  runWorker(): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * A Temporal dev server of its own (so the test can stop and restart it), an isolated database, a
 * test app and a running event dispatcher on them.
 */
export async function startOutageRig(label: string, appEnv: Record<string, string> = {}): Promise<OutageRig> {
  const logger = createLogger('silent');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vp-${label}-`));
  const serverOpts = {
    logger,
    namespace: 'default',
    dbFilename: path.join(dir, 'temporal.sqlite'),
    port: await freePort(),
    uiPort: await freePort(),
    searchAttributes: SEARCH_ATTRIBUTES,
  };
  let temporal = await startTemporalDevServer(serverOpts);
  const db = await createIsolatedDatabase(label);
  const queue = `vp-${label}-${process.pid}`;
  const app = await startTestApp({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: queue,
    ...appEnv,
  });
  const outbox = {
    knex: app.ctx.orm.em.getConnection().getKnex(),
    temporal: app.ctx.temporal,
    config: app.ctx.config,
    logger,
  };
  const dispatcher = new EventDispatcher({
    ...outbox,
    listenUrl: db.url,
    handlers: createOutboxHandlers(outbox),
  });
  dispatcher.start();
  const workers = new Set<() => Promise<void>>();
  return {
    app,
    stopTemporal: () => temporal.stop(),
    startTemporal: async () => {
      temporal = await startTemporalDevServer(serverOpts);
    },
    runWorker: async () => {
      const { workers: pools, connection } = await createWorkerPools({
        pools: WORKLOADS.map((workload) => ({
          workload,
          taskQueue: app.ctx.config.temporal.taskQueues[workload],
          registry: workerRegistry({ ...app.ctx, logger }, workload),
        })),
        logger,
        address: temporal.address,
        namespace: 'default',
      });
      const running = Promise.all(pools.map(({ worker }) => worker.run()));
      const stop = async () => {
        if (!workers.delete(stop)) return;
        for (const { worker } of pools) worker.shutdown();
        await running;
        await connection.close();
      };
      workers.add(stop);
      return stop;
    },
    close: async () => {
      await dispatcher.stop();
      for (const stop of [...workers]) await stop();
      await app.close();
      await temporal.stop();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
