import { startWorker } from '../../src/app/runtime';
import { TEST_ENV } from '../support/env';
import { createIsolatedDatabase } from '../support/isolated-db';
import { type Receiver, startReceiver } from '../support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 26 item 7: two API instances and two workers (each with its event dispatcher) on one
 * database keep every limit exact when the requests race across both instances, and two dispatchers
 * deliver each event once. (test/rate-limits.test.ts counts one budget across two instances, one
 * request at a time.)
 */
describe('two API instances and two workers on one database', () => {
  let db: { url: string; drop(): Promise<void> };
  let a: TestApp;
  let b: TestApp;
  let workers: Awaited<ReturnType<typeof startWorker>>[] = [];
  let receiver: Receiver;
  let dev: Developer;

  beforeAll(async () => {
    db = await createIsolatedDatabase('twoinst');
    const env = { DATABASE_URL: db.url, TEMPORAL_TASK_QUEUE: `vp-twoinst-${process.pid}` };
    a = await startTestApp(env);
    b = await startTestApp(env);
    workers = [
      await startWorker(a.ctx, TEST_ENV.temporalAddress()),
      await startWorker(b.ctx, TEST_ENV.temporalAddress()),
    ];
    receiver = await startReceiver();
    dev = await newDeveloper(a, 'twoinst'); // the free plan: 60 requests a minute, 5 webhooks
  });

  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await a?.close();
    await b?.close();
    await receiver?.close();
    await db?.drop();
  });

  const across = <T>(n: number, fn: (app: TestApp, i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: n }, (_, i) => fn(i % 2 === 0 ? a : b, i)));

  it('the plan budget: of 75 requests at once across both instances, exactly 60 pass', async () => {
    const answers = await across(75, (app) =>
      call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.liveKey }),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it('the plan limit on webhooks: of 9 creates at once across both instances, exactly 5 are made', async () => {
    const answers = await across(9, (app, i) =>
      call(app.baseUrl, 'POST', '/api/v2/developers/webhooks', {
        token: dev.testKey,
        body: { name: `hook ${i}`, url: receiver.url, events: ['tool.called'] },
      }),
    );
    expect(answers.filter((res) => res.status === 201)).toHaveLength(5);
    const refused = answers.filter((res) => res.status !== 201);
    expect(refused.map((res) => [res.status, res.body.code])).toEqual(
      Array(4).fill([403, 'PLAN_LIMIT_REACHED']),
    );
    const list = await call(b.baseUrl, 'GET', '/api/v2/developers/webhooks', { token: dev.testKey });
    expect(list.body.data).toHaveLength(5);
  });

  it('the expensive class: of 14 triggers at once across both instances exactly 10 pass, and two dispatchers deliver each once', async () => {
    const sender = await newDeveloper(b, 'twoinst-events');
    const hooks = await across(2, (app, i) =>
      call(app.baseUrl, 'POST', '/api/v2/developers/webhooks', {
        token: sender.testKey,
        body: { name: `events ${i}`, url: receiver.url, events: ['tool.called'] },
      }),
    );
    expect(hooks.map((res) => res.status)).toEqual([201, 201]);
    const before = receiver.requests.length;
    const answers = await across(14, (app) =>
      call(app.baseUrl, 'POST', '/api/v2/developers/events/trigger', {
        token: sender.testKey,
        body: { type: 'tool.called' },
      }),
    );
    expect(answers.filter((res) => res.status === 201)).toHaveLength(10);
    expect(answers.filter((res) => res.status !== 201).map((res) => res.body.error)).toEqual(
      Array(4).fill('Rate limit exceeded: 10 requests per minute for expensive operations'),
    );
    await receiver.waitFor(before + 10 * 2, 60_000);
    await new Promise((r) => setTimeout(r, 1_500));
    const pairs = receiver.requests
      .slice(before)
      .map((r) => `${r.headers['x-service-event-id']} ${r.headers['x-service-delivery-id']}`);
    expect(pairs).toHaveLength(20);
    expect(new Set(pairs).size).toBe(20);
  }, 90_000);
});
