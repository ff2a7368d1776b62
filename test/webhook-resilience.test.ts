import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startWorker } from '../src/app/runtime';
import { EventDispatcher } from '../src/events/dispatcher';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { createWorker } from '../src/temporal/worker';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { eventually, type Receiver, startReceiver } from './support/receiver';
import { call, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const ROOT = path.resolve(__dirname, '..');

async function rows(app: TestApp, sql: string, params: unknown[] = []) {
  return app.ctx.orm.em.fork().getConnection().execute(sql, params);
}

async function setupHook(app: TestApp, receiver: Receiver, events = ['tool.called']) {
  const dev = await newDeveloper(app);
  const hook = await call(app.baseUrl, 'POST', '/api/v2/developers/webhooks', {
    token: dev.testKey,
    body: { name: 'hook', url: receiver.url, events },
  });
  expect(hook.status).toBe(201);
  const trigger = async () => {
    const res = await call(app.baseUrl, 'POST', '/api/v2/developers/events/trigger', {
      token: dev.testKey,
      body: { type: events[0] },
    });
    expect(res.status).toBe(201);
    return res.body.data.event.id as string;
  };
  return { dev, hookId: hook.body.data.id as string, trigger };
}

describe('SSRF: deliveries never reach private addresses unless allowed', () => {
  it('a worker without OUTBOUND_ALLOW_PRIVATE refuses a loopback receiver at attempt time', async () => {
    const receiver = await startReceiver();
    const queue = `vp-ssrf-${process.pid}`;
    // the webhook is registered where private targets are allowed (as in development) ...
    const permissive = await startTestApp();
    // ... and tested through an API and a worker of a deployment that refuses them
    const strict = await startTestApp({ TEMPORAL_TASK_QUEUE: queue, OUTBOUND_ALLOW_PRIVATE: 'false' });
    const worker = await startWorker(strict.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    try {
      const { dev, hookId } = await setupHook(permissive, receiver);
      const res = await call(strict.baseUrl, 'POST', `/api/v2/developers/webhooks/${hookId}/test`, {
        token: dev.testKey,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.delivered).toBe(false);
      expect(res.body.data.error).toMatch(/^Refused: .*private or reserved address/);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await worker.stop();
      await strict.close();
      await permissive.close();
      await receiver.close();
    }
  });
});

/** `node --import tsx`, not the tsx wrapper, so the pid is the worker itself and SIGKILL kills it. */
function spawnWorker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/bin/worker.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

describe('a worker killed between attempts', () => {
  it('a new worker finishes the delivery, and the receiver gets it once', async () => {
    const db = await createIsolatedDatabase('kill');
    const queue = `vp-kill-${process.pid}`;
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
      TEMPORAL_TASK_QUEUE: queue,
      WEBHOOK_RETRY_DELAYS: '0,4,4,4,4',
      WEBHOOK_TIMEOUT_MS: '2000',
    };
    const app = await startTestApp(env);
    const receiver = await startReceiver();
    receiver.respond([500], 200);
    const workerEnv = {
      ...env,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'vp-kill-')),
      LOG_LEVEL: 'warn',
    };
    let first: ChildProcess | undefined = spawnWorker(workerEnv);
    let second: ChildProcess | undefined;
    try {
      const { hookId, trigger } = await setupHook(app, receiver);
      const eventId = await trigger();
      await receiver.waitFor(1, 60_000); // the first worker made attempt 1 (answered 500)
      await eventually(async () => {
        const [d] = await rows(app, 'select attempts from deliveries where webhook_id = ?', [hookId]);
        return d?.attempts === 1;
      });
      const exited = new Promise((r) => first!.once('exit', r));
      first.kill('SIGKILL');
      await exited;
      first = undefined;

      second = spawnWorker(workerEnv);
      const requests = await receiver.waitFor(2, 60_000);
      const [delivery] = await eventually(async () => {
        const found = await rows(
          app,
          `select * from deliveries where webhook_id = ? and status = 'delivered'`,
          [hookId],
        );
        return found.length ? found : undefined;
      }, 30_000);
      expect(delivery).toMatchObject({ attempts: 2, event_id: eventId, status_code: 200 });
      await new Promise((r) => setTimeout(r, 1_000));
      expect(receiver.requests).toHaveLength(2);
      expect(requests.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2']);
      const attempts = await rows(
        app,
        'select attempt, success from delivery_attempts where delivery_id = ?',
        [delivery.id],
      );
      expect(attempts.map((a: any) => [a.attempt, a.success])).toEqual([
        [1, false],
        [2, true],
      ]);
    } finally {
      first?.kill('SIGKILL');
      if (second) {
        const exited = new Promise((r) => second!.once('exit', r));
        second.kill('SIGTERM');
        await exited;
      }
      await receiver.close();
      await app.close();
      await db.drop();
    }
  }, 150_000);
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe('a Temporal outage', () => {
  it('events committed while Temporal is down are delivered after it returns, once each', async () => {
    const logger = createLogger('silent');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-outage-'));
    const [port, uiPort] = [await freePort(), await freePort()];
    const serverOpts = {
      logger,
      namespace: 'default',
      dbFilename: path.join(dir, 'temporal.sqlite'),
      port,
      uiPort,
      searchAttributes: SEARCH_ATTRIBUTES,
    };
    let temporal = await startTemporalDevServer(serverOpts);
    const db = await createIsolatedDatabase('outage');
    const queue = `vp-outage-${process.pid}`;
    const app = await startTestApp({
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: queue,
    });
    const receiver = await startReceiver();
    const dispatcher = new EventDispatcher({
      knex: app.ctx.orm.em.getConnection().getKnex(),
      temporal: app.ctx.temporal,
      config: app.ctx.config,
      logger,
      listenUrl: db.url,
    });
    const workerDeps = { config: app.ctx.config, logger, orm: app.ctx.orm, encryptor: app.ctx.encryptor };
    const runWorker = async () => {
      const { worker, connection } = await createWorker({
        deps: workerDeps,
        address: temporal.address,
        namespace: 'default',
        taskQueue: queue,
      });
      const running = worker.run();
      return async () => {
        worker.shutdown();
        await running;
        await connection.close();
      };
    };
    let stopWorker: (() => Promise<void>) | undefined;
    try {
      dispatcher.start();
      stopWorker = await runWorker();
      const { hookId, trigger } = await setupHook(app, receiver);
      await trigger();
      await receiver.waitFor(1);

      await stopWorker();
      stopWorker = undefined;
      await temporal.stop();
      const during = [await trigger(), await trigger(), await trigger()]; // acknowledged while Temporal is down
      await eventually(async () => {
        const found = await rows(
          app,
          'select id from deliveries where webhook_id = ? and workflow_started_at is null and status = ?',
          [hookId, 'pending'],
        );
        return found.length === 3;
      });
      await new Promise((r) => setTimeout(r, 1_500)); // the dispatcher keeps failing meanwhile
      expect(receiver.requests).toHaveLength(1);

      temporal = await startTemporalDevServer(serverOpts);
      stopWorker = await runWorker();
      await receiver.waitFor(4, 60_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const ids = receiver.requests.map((r) => r.headers['x-service-event-id']);
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
      expect(ids).toEqual(expect.arrayContaining(during));
    } finally {
      await dispatcher.stop();
      await stopWorker?.();
      await receiver.close();
      await app.close();
      await temporal.stop();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
