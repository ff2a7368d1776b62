import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChaosReceivers, type DeliveryFigures } from './chaos-tally';
import { type DatabaseProxy, startDatabaseProxy } from './db-proxy';
import { createIsolatedDatabase } from './isolated-db';
import { workerProcessEnv } from './resilience';
import { startRestartableTemporal } from './restartable-temporal';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './test-app';
import { startWorkerProcesses, type WorkerProcesses } from './worker-processes';

/**
 * The platform under faults: its own Temporal dev server on a SQLite file (so it can be restarted
 * without losing a workflow), its own database reached only through a TCP proxy that can refuse
 * connections, an API instance (in this process), `workers` worker processes (each with its event
 * dispatcher) that can be SIGKILLed, and one receiver per webhook. Used by `npm run bench:chaos` and,
 * smaller, by test/hardening/chaos.test.ts.
 */
export interface ChaosRig {
  app: TestApp;
  dev: Developer;
  proxy: DatabaseProxy;
  receivers: ChaosReceivers;
  workers: WorkerProcesses;
  /** The database itself, not through the proxy (for counting). */
  databaseUrl: string;
  /** The Temporal server's address (the same across its restart). */
  temporalAddress: string;
  /** Stops the Temporal server and starts it again on the same port and file; answers seconds down. */
  restartTemporal(): Promise<number>;
  /** The API's logged errors (JSON lines), to explain an unexpected answer. */
  loggedErrors(): string[];
  close(): Promise<void>;
}

export async function startChaosRig(opts: {
  label: string;
  webhooks: number;
  workers: number;
  /** Run the compiled worker (dist/) when `npm run build` has made one; else the source with tsx. */
  compiledWorkers?: boolean;
}): Promise<ChaosRig> {
  const temporal = await startRestartableTemporal(opts.label);
  const db = await createIsolatedDatabase(opts.label);
  const proxy = await startDatabaseProxy(db.url);
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: proxy.url,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `vp-${opts.label}-${process.pid}`,
    RATE_LIMITS: 'off',
    // receivers always answer 200: these only matter for an attempt the receiver answered too late
    WEBHOOK_RETRY_DELAYS: '0,1,2,4,8',
    WEBHOOK_TIMEOUT_MS: '5000',
    LOG_FORMAT: 'json',
  };
  // outside jest (the bench) there is no run-wide test database or server: the rig's own stand in
  process.env.VP_TEST_DATABASE_URL ??= db.url;
  process.env.VP_TEST_TEMPORAL_ADDRESS ??= temporal.address;
  process.env.VP_TEST_TASK_QUEUE ??= env.TEMPORAL_TASK_QUEUE;
  // the API's errors are kept, so that an unexpected 500 names its cause
  const loggedErrors: string[] = [];
  const app = await startTestApp(
    { ...env, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error' },
    { logDestination: { write: (line: string) => void loggedErrors.push(line) } },
  );
  const receivers = await ChaosReceivers.start(opts.webhooks);
  const workerEnv = workerProcessEnv(env, opts.label);
  const workers = startWorkerProcesses(opts.workers, workerEnv, { compiled: opts.compiledWorkers });
  // every step runs even when one before it fails, so nothing is left holding the process open
  const close = () =>
    inTurn([
      () => workers.stop(),
      () => app.close(),
      () => receivers.close(),
      () => proxy.close(),
      () => temporal.stop(),
      () => db.drop(),
      async () => fs.rmSync(workerEnv.DATA_DIR, { recursive: true, force: true }),
    ]);
  try {
    const dev = await newDeveloper(app, opts.label);
    for (const url of receivers.urls) {
      const hook = await call(app.baseUrl, 'POST', '/api/v2/developers/webhooks', {
        token: dev.testKey,
        body: { name: `chaos ${receivers.webhookIds.length}`, url, events: ['tool.called'] },
      });
      if (hook.status !== 201) throw new Error(`webhook: ${JSON.stringify(hook.body)}`);
      receivers.webhookIds.push(hook.body.data.id);
    }
    await workers.start();
    return {
      app,
      dev,
      proxy,
      receivers,
      workers,
      databaseUrl: db.url,
      temporalAddress: temporal.address,
      restartTemporal: temporal.restart,
      loggedErrors: () => loggedErrors,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs each step after the one before has settled; throws the first failure once all have run. */
async function inTurn(steps: (() => Promise<unknown>)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) await step().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

/** One run's load and faults. Times are seconds from the first request. */
export interface ChaosPlan {
  events: number;
  /** Events per second the producer sends (0: as fast as they are acknowledged). */
  rate: number;
  /** Requests in flight at most. */
  concurrency: number;
  /** A worker is SIGKILLed (and replaced) this often, until everything is delivered; 0: never. */
  killEverySeconds: number;
  maxKills: number;
  /** When the Temporal server is stopped and started again; undefined: never. */
  temporalRestartAt?: number;
  /** When the database starts refusing connections, and for how long; undefined: never. */
  outageAt?: number;
  outageSeconds: number;
  /** How long to wait for everything to be delivered after the last event was acknowledged. */
  drainSeconds: number;
}

export interface ChaosFigures extends DeliveryFigures {
  /** Trigger answers that were not a 201 (503 during the outage) and were retried. */
  refusedAnswers: number;
  kills: number;
  /** Worker processes that exited on their own (not killed by the run). */
  crashes: number;
  lastCrash?: string;
  temporalDownSeconds: number;
  /** Whether every pair was received before the drain deadline. */
  drained: boolean;
}

/** Runs `plan` on the rig: events through the API while the faults happen, then the count. */
export async function runChaos(
  rig: ChaosRig,
  plan: ChaosPlan,
  progress?: (line: string) => void,
): Promise<ChaosFigures> {
  rig.receivers.reset();
  const before = rig.workers.stats();
  const acked = new Set<string>();
  const startedAt = performance.now();
  const state = { done: false, oneShotsDone: false, refusedAnswers: 0, temporalDownSeconds: 0 };
  const ticker = progress
    ? setInterval(() => {
        const t = ((performance.now() - startedAt) / 1000).toFixed(0);
        const delivered = rig.receivers.deliveredOf(acked);
        progress(
          `  t=${t}s acknowledged ${acked.size}, delivered ${delivered}/${acked.size * rig.receivers.urls.length}, workers polling ${rig.workers.readyCount()}`,
        );
      }, 5_000)
    : undefined;
  const faults = runFaults(rig, plan, startedAt, state);
  faults.catch(() => undefined); // awaited below; not unhandled if the producer fails first
  try {
    await produce(rig, plan, startedAt, acked, state);
    const expected = () => acked.size * rig.receivers.urls.length;
    const deadline = performance.now() + plan.drainSeconds * 1000;
    while (performance.now() < deadline) {
      if (state.oneShotsDone && rig.receivers.deliveredOf(acked) === expected()) break;
      await sleep(250);
    }
    state.done = true;
    await faults;
    await sleep(2_000); // a retry still under way arrives and is counted
  } finally {
    state.done = true;
    clearInterval(ticker);
    // a fault still under way (an outage's restore, a Temporal restart) ends before the caller can
    // close the rig: run after close, it would listen or start a server again and keep jest running
    await faults.catch(() => undefined);
  }
  const figures = await rig.receivers.tally(acked, startedAt, rig.databaseUrl);
  const after = rig.workers.stats();
  return {
    ...figures,
    refusedAnswers: state.refusedAnswers,
    kills: after.killed - before.killed,
    crashes: after.crashed - before.crashed,
    lastCrash: after.crashed > before.crashed ? after.lastCrash : undefined,
    temporalDownSeconds: state.temporalDownSeconds,
    drained: figures.delivered === figures.expected,
  };
}

/**
 * The producer: `plan.events` triggers (`tool.called`, to every webhook), paced at `plan.rate`, at
 * most `plan.concurrency` at once. An answer other than 201 (a 503 while the database is down) is
 * retried as a client would, after its Retry-After; only a 201 counts as acknowledged. The first
 * lane to fail stops the others (they would otherwise retry for ever and keep jest from exiting).
 */
async function produce(
  rig: ChaosRig,
  plan: ChaosPlan,
  startedAt: number,
  acked: Set<string>,
  state: { refusedAnswers: number },
): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    for (let i = next++; i < plan.events && !failed; i = next++) {
      const due = startedAt + (plan.rate > 0 ? (i * 1000) / plan.rate : 0);
      if (due > performance.now()) await sleep(due - performance.now());
      while (!failed) {
        const res = await call(rig.app.baseUrl, 'POST', '/api/v2/developers/events/trigger', {
          token: rig.dev.testKey,
          body: { type: 'tool.called' },
        }).catch((error: Error) => ({ status: 0, headers: new Headers(), body: String(error) }));
        if (res.status === 201) {
          acked.add(res.body.data.event.id);
          break;
        }
        state.refusedAnswers++;
        if (res.status !== 503 && res.status !== 0) {
          failed = true;
          const logged = rig
            .loggedErrors()
            .filter((line) => line.includes(res.body?.error?.match?.(/req_\w+/)?.[0] ?? '\0'));
          throw new Error(`trigger: ${res.status} ${JSON.stringify(res.body)}\n${logged.join('\n')}`);
        }
        const retryAfter = Number(res.headers.get('retry-after') ?? 1);
        await sleep(Math.min(Number.isFinite(retryAfter) ? retryAfter : 1, 5) * 1000);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, plan.concurrency) }, lane));
}

/** The plan's faults; worker kills go on until `state.done`, the one-shot faults set `oneShotsDone`. */
async function runFaults(
  rig: ChaosRig,
  plan: ChaosPlan,
  startedAt: number,
  state: { done: boolean; oneShotsDone: boolean; temporalDownSeconds: number },
): Promise<void> {
  const at = async (seconds: number) => {
    const wait = startedAt + seconds * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
  };
  const kills = async () => {
    if (plan.killEverySeconds <= 0) return;
    let killed = 0;
    while (!state.done && killed < plan.maxKills) {
      await sleep(plan.killEverySeconds * 1000);
      // killOne keeps one worker polling: with the others still starting, this tick is skipped
      if (!state.done && rig.workers.killOne()) killed++;
    }
  };
  const temporal = async () => {
    if (plan.temporalRestartAt === undefined) return;
    await at(plan.temporalRestartAt);
    state.temporalDownSeconds = await rig.restartTemporal();
  };
  const outage = async () => {
    if (plan.outageAt === undefined) return;
    await at(plan.outageAt);
    await rig.proxy.refuse();
    try {
      await sleep(plan.outageSeconds * 1000);
    } finally {
      await rig.proxy.restore();
    }
  };
  const kill = kills();
  await Promise.all([temporal(), outage()]);
  state.oneShotsDone = true;
  await kill;
}
