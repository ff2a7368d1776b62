import type { ChildProcess } from 'node:child_process';
import { startWorker } from '../src/app/runtime';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { eventually, type Receiver, startReceiver } from './support/receiver';
import { spawnWorker, startOutageRig, stopProcess, workerProcessEnv } from './support/resilience';
import { call, newDeveloper, startTestApp, type TestApp } from './support/test-app';

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
    const workerEnv = workerProcessEnv(env, 'kill');
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
      await stopProcess(first, 'SIGKILL');
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
      await stopProcess(first, 'SIGKILL');
      await stopProcess(second, 'SIGTERM');
      await receiver.close();
      await app.close();
      await db.drop();
    }
  }, 150_000);
});

describe('a Temporal outage', () => {
  it('events committed while Temporal is down are delivered after it returns, once each', async () => {
    const rig = await startOutageRig('outage');
    const { app } = rig;
    const receiver = await startReceiver();
    try {
      const stopWorker = await rig.runWorker();
      const { hookId, trigger } = await setupHook(app, receiver);
      await trigger();
      await receiver.waitFor(1);

      await stopWorker();
      await rig.stopTemporal();
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

      await rig.startTemporal();
      await rig.runWorker();
      await receiver.waitFor(4, 60_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const ids = receiver.requests.map((r) => r.headers['x-service-event-id']);
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
      expect(ids).toEqual(expect.arrayContaining(during));
    } finally {
      await receiver.close();
      await rig.close();
    }
  }, 180_000);
});
