import { createPublicKey, verify } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startWorker } from '../src/app/runtime';
import { loadConfig } from '../src/config/env';
import { verifyEd25519WebhookSignature } from '../src/index';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { eventually, type ReceivedRequest, type Receiver, startReceiver } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * Webhooks that heal themselves (docs/webhooks.md "Disabling", "Recovering missed events",
 * "Ed25519 signatures"), against a real API, worker, dispatcher, PostgreSQL and Temporal. The
 * thresholds are seconds here: disabled after 2 s of failures spread over at least 4 s.
 */
const DISABLE_AFTER_S = 2;
const MIN_SPAN_S = 4;

let app: TestApp;
let worker: Awaited<ReturnType<typeof startWorker>>;
let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  db = await createIsolatedDatabase('healing');
  app = await startTestApp({
    DATABASE_URL: db.url,
    TEMPORAL_TASK_QUEUE: `vp-healing-${process.pid}`,
    WEBHOOK_RETRY_DELAYS: '0,1,1',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_DISABLE_AFTER_DAYS: String(DISABLE_AFTER_S / 86_400),
    WEBHOOK_DISABLE_MIN_SPAN_HOURS: String(MIN_SPAN_S / 3_600),
  });
  worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: true });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await Promise.all(receivers.map((r) => r.close()));
  await db?.drop();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const api = (dev: Developer, method: string, path: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });

async function createHook(
  dev: Developer,
  url: string,
  events: string[],
  extra: Record<string, unknown> = {},
) {
  const res = await api(dev, 'POST', '/webhooks', { name: 'hook', url, events, ...extra });
  expect(res.status).toBe(201);
  return res.body.data as {
    id: string;
    secret: string;
    signing: { algorithm: string; publicKey: string | null };
  };
}

async function trigger(dev: Developer, type = 'tool.called'): Promise<string> {
  const res = await api(dev, 'POST', '/events/trigger', { type });
  expect(res.status).toBe(201);
  return res.body.data.event.id as string;
}

const getHook = async (dev: Developer, id: string) => (await api(dev, 'GET', `/webhooks/${id}`)).body.data;

/** The deliveries of a webhook, once none is pending (and at least `count` exist). */
async function settled(dev: Developer, hookId: string, count: number) {
  return eventually(async () => {
    const res = await api(dev, 'GET', `/webhooks/${hookId}/logs?limit=100`);
    const entries = res.body.data as any[];
    return entries.length >= count && entries.every((e) => e.status !== 'pending') ? entries : undefined;
  }, 30_000);
}

const eventIds = (requests: ReceivedRequest[]) =>
  requests.map((r) => String(r.headers['x-service-event-id']));
const eventsOfType = (r: Receiver, type: string) =>
  r.requests.filter((q) => q.headers['x-service-event-type'] === type).map((q) => JSON.parse(q.rawBody));

describe('configuration', () => {
  it('defaults to 5 days over at least 12 hours, recovering 14 days back; fractions allowed', () => {
    expect(loadConfig({}).webhooks).toMatchObject({
      disableAfterMs: 5 * 86_400_000,
      disableMinSpanMs: 12 * 3_600_000,
      recoveryWindowMs: 14 * 86_400_000,
    });
    expect(loadConfig({ WEBHOOK_DISABLE_AFTER_DAYS: '0.5' }).webhooks.disableAfterMs).toBe(43_200_000);
    expect(() => loadConfig({ WEBHOOK_DISABLE_AFTER_DAYS: '0' })).toThrow(/WEBHOOK_DISABLE_AFTER_DAYS/);
  });
});

describe('auto-disabling', () => {
  it('disables an endpoint whose attempts all failed over the min span, and tells the other endpoints', async () => {
    const dev = await newDeveloper(app, 'failing');
    const down = await receiver();
    down.respond([], 503);
    const other = await receiver();
    const failing = await createHook(dev, down.url, ['tool.called', 'webhook.disabled']);
    const watcher = await createHook(dev, other.url, ['webhook.disabled']);

    // one delivery's three attempts fail within ~2 s: past DISABLE_AFTER but not spread over MIN_SPAN
    await trigger(dev);
    const [first] = await settled(dev, failing.id, 1);
    expect(first).toMatchObject({ status: 'failed', attempts: 3 });
    const hook = await getHook(dev, failing.id);
    expect(hook).toMatchObject({ status: 'failing', enabled: true, disabledAt: null, disabledReason: null });
    expect(Date.parse(hook.disablesAt) - Date.parse(hook.failingSince)).toBe(MIN_SPAN_S * 1000);

    // the first failure once the span has passed disables it
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(hook.disablesAt) - Date.now()) + 200));
    await trigger(dev);
    const disabled = await eventually(async () => {
      const h = await getHook(dev, failing.id);
      return h.status === 'disabled' ? h : undefined;
    });
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'failing', disablesAt: null });
    const entries = await settled(dev, failing.id, 2);
    expect(entries[0]).toMatchObject({ status: 'failed', attempts: 1 }); // no retry after disabling

    const [event] = await eventually(async () => {
      const found = eventsOfType(other, 'webhook.disabled');
      return found.length ? found : undefined;
    });
    expect(event.data).toMatchObject({
      webhookId: failing.id,
      reason: 'failing',
      url: down.url,
      failingSince: hook.failingSince,
      disabledAt: disabled.disabledAt,
    });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(eventsOfType(other, 'webhook.disabled')).toHaveLength(1);
    expect(eventsOfType(down, 'webhook.disabled')).toHaveLength(0); // never to the disabled one
    expect((await getHook(dev, watcher.id)).status).toBe('active');

    // a disabled endpoint gets no new deliveries
    const before = down.requests.length;
    await trigger(dev);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(down.requests).toHaveLength(before);

    // re-enabling clears the reason and the count-down
    const put = await api(dev, 'PUT', `/webhooks/${failing.id}`, { enabled: true });
    expect(put.status).toBe(200);
    expect(await getHook(dev, failing.id)).toMatchObject({
      enabled: true,
      disabledAt: null,
      disabledReason: null,
      failingSince: null,
    });
  }, 90_000);

  it('a receiver answering 410 Gone disables its endpoint at once', async () => {
    const dev = await newDeveloper(app, 'gone');
    const gone = await receiver();
    gone.respond([], 410);
    const other = await receiver();
    const hook = await createHook(dev, gone.url, ['tool.called']);
    await createHook(dev, other.url, ['webhook.disabled', 'tool.called']);

    await trigger(dev);
    const [delivery] = await settled(dev, hook.id, 1);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, statusCode: 410 });
    const result = await app.ctx.temporal.workflow.getHandle(delivery.id).result();
    expect(result).toMatchObject({ status: 'endpoint_disabled', statusCode: 410, attempts: 1 });
    expect(await getHook(dev, hook.id)).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
    expect(gone.requests).toHaveLength(1);

    const [event] = await eventually(async () => {
      const found = eventsOfType(other, 'webhook.disabled');
      return found.length ? found : undefined;
    });
    expect(event.data).toMatchObject({ webhookId: hook.id, reason: 'gone' });
  }, 60_000);
});

describe('deliveries under way when an endpoint is disabled', () => {
  it('stop retrying: their workflow ends as endpoint_disabled at its next attempt, sending nothing', async () => {
    const dev = await newDeveloper(app, 'underway');
    const r = await receiver();
    r.respond([503, 410], 503); // the first delivery's first attempt fails; the second's answers 410
    const hook = await createHook(dev, r.url, ['tool.called']);
    await trigger(dev);
    const [first] = await r.waitFor(1);
    await trigger(dev); // its first attempt lands before the first delivery's retry (1 s later)
    await r.waitFor(2);
    const underWay = String(first.headers['x-service-delivery-id']);
    const result = await app.ctx.temporal.workflow.getHandle(underWay).result();
    expect(result).toMatchObject({ status: 'endpoint_disabled', error: 'Webhook disabled' });
    expect(r.requests).toHaveLength(2); // no retry reached the receiver
    const entries = await settled(dev, hook.id, 2);
    expect(entries.find((e) => e.id === underWay)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: 'Webhook disabled',
    });
    expect(await getHook(dev, hook.id)).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
  }, 60_000);
});

describe('recovering missed events', () => {
  it('re-sends each event missed during an outage once, with its original id, and none delivered', async () => {
    const dev = await newDeveloper(app, 'recover');
    const r = await receiver();
    const hook = await createHook(dev, r.url, ['tool.called']);
    const since = new Date(Date.now() - 1000).toISOString();

    const delivered = await trigger(dev);
    await r.waitFor(1);
    r.respond([], 503); // the receiver's outage
    const missed = [await trigger(dev), await trigger(dev)];
    await settled(dev, hook.id, 3);
    const disable = await api(dev, 'PUT', `/webhooks/${hook.id}`, { enabled: false });
    expect(disable.status).toBe(200);
    missed.push(await trigger(dev)); // while disabled: never attempted
    await new Promise((res) => setTimeout(res, 1_000));
    expect((await api(dev, 'POST', `/webhooks/${hook.id}/recover`, { since })).status).toBe(409); // only an active endpoint
    expect((await api(dev, 'PUT', `/webhooks/${hook.id}`, { enabled: true })).status).toBe(200);

    r.respond([], 200); // back
    const seenBefore = r.requests.length;
    const res = await api(dev, 'POST', `/webhooks/${hook.id}/recover`, { since });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ status: 'running', since, webhookId: hook.id });
    expect(res.body.data.id).toMatch(/^wrc_/);
    const done = await eventually(async () => {
      const p = await api(dev, 'GET', `/webhooks/${hook.id}/recoveries/${res.body.data.id}`);
      return p.body.data.status === 'completed' && p.body.data.sent === 3 ? p.body.data : undefined;
    }, 30_000);
    expect(done).toMatchObject({ total: 3, sent: 3, failed: 0, pending: 0 });

    await new Promise((res) => setTimeout(res, 1_500));
    const resent = r.requests.slice(seenBefore);
    expect(eventIds(resent).sort()).toEqual([...missed].sort());
    expect(eventIds(resent)).not.toContain(delivered);
    expect(resent.map((q) => JSON.parse(q.rawBody).id).sort()).toEqual([...missed].sort());
    const logs = (await api(dev, 'GET', `/webhooks/${hook.id}/logs?limit=100`)).body.data as any[];
    expect(
      logs
        .filter((l) => l.recoveryId === done.id)
        .map((l) => l.eventId)
        .sort(),
    ).toEqual([...missed].sort());

    // nothing left to recover: a second recovery sends nothing
    const again = await api(dev, 'POST', `/webhooks/${hook.id}/recover`, { since });
    expect(again.status).toBe(202);
    const second = await eventually(async () => {
      const p = await api(dev, 'GET', `/webhooks/${hook.id}/recoveries/${again.body.data.id}`);
      return p.body.data.status === 'completed' ? p.body.data : undefined;
    });
    expect(second.total).toBe(0);
  }, 90_000);

  it('pages through the window in batches, continuing as new', async () => {
    const dev = await newDeveloper(app, 'paging');
    const r = await receiver();
    r.respond([], 503);
    const hook = await createHook(dev, r.url, ['tool.called']);
    const since = new Date(Date.now() - 1000);
    const missed = [await trigger(dev), await trigger(dev), await trigger(dev)];
    await settled(dev, hook.id, 3);
    r.respond([], 200);
    // a recovery row the workflow below serves (started: the dispatcher leaves it alone)
    const id = `wrc_paging${Date.now()}`;
    await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into webhook_recoveries (id, account_id, environment, webhook_id, status, since, until, workflow_started_at, created_at, updated_at)
         values (?, ?, 'test', ?, 'running', ?, now(), now(), now(), now())`,
        [id, dev.publisherId, hook.id, since],
      );
    const handle = await app.ctx.temporal.workflow.start('recoverWebhookEventsWorkflow', {
      workflowId: id,
      taskQueue: app.ctx.config.temporal.taskQueues.deliveries,
      args: [{ recoveryId: id, batchSize: 1, batchesPerRun: 1 }],
    });
    expect(await handle.result()).toEqual({ status: 'completed', total: 3 });
    const { executions } = await collectRuns(id);
    expect(executions).toBeGreaterThanOrEqual(4); // one batch per run, then the empty last one
    await r.waitFor(3 + 3 * 3, 30_000);
    await new Promise((res) => setTimeout(res, 1_000));
    const resent = r.requests.filter((q) => q.headers['x-service-delivery-attempt'] === '1').slice(3);
    expect(eventIds(resent).sort()).toEqual([...missed].sort());
  }, 90_000);

  it('refuses a bad body, naming the field', async () => {
    const dev = await newDeveloper(app, 'badrecover');
    const r = await receiver();
    const hook = await createHook(dev, r.url, ['tool.called']);
    const post = (body: unknown) => api(dev, 'POST', `/webhooks/${hook.id}/recover`, body);
    const notADate = await post({ since: 'yesterday' });
    expect(notADate.status).toBe(400);
    expect(notADate.body.validationErrors.join('\n')).toMatch(/^since: /m);
    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(missing.body.validationErrors.join('\n')).toMatch(/since/);
    const old = await post({ since: new Date(Date.now() - 30 * 86_400_000).toISOString() });
    expect(old.status).toBe(400);
    expect(old.body.validationErrors).toEqual([
      'since: must be within the last 14 days (events older than that are not recovered)',
    ]);
    const backwards = await post({
      since: new Date(Date.now() - 60_000).toISOString(),
      until: new Date(Date.now() - 120_000).toISOString(),
    });
    expect(backwards.status).toBe(400);
    expect(backwards.body.validationErrors).toEqual(['until: must be after since']);
    const extra = await post({ since: new Date().toISOString(), force: true });
    expect(extra.status).toBe(400);
    expect((await api(dev, 'GET', `/webhooks/${hook.id}/recoveries/wrc_nope`)).status).toBe(404);
  });
});

describe('Ed25519 signatures', () => {
  it('signs with v1a, verified with the whpk_ public key', async () => {
    const dev = await newDeveloper(app, 'ed25519');
    const r = await receiver();
    const hook = await createHook(dev, r.url, ['tool.called'], { signing: { algorithm: 'ed25519' } });
    expect(hook.signing.algorithm).toBe('ed25519');
    expect(hook.signing.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect((await getHook(dev, hook.id)).signing).toEqual(hook.signing);
    const [stored] = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select signing_key_ciphertext from webhooks where id = ?', [hook.id]);
    expect(stored.signing_key_ciphertext).not.toMatch(/^MC4CAQAwBQYDK2Vw/); // PKCS#8 Ed25519 DER, encrypted

    const eventId = await trigger(dev);
    const [req] = await r.waitFor(1);
    const id = String(req.headers['webhook-id']);
    const timestamp = String(req.headers['webhook-timestamp']);
    const signature = String(req.headers['webhook-signature']);
    expect(id).toBe(eventId);
    expect(signature).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);

    // per the Standard Webhooks spec, with nothing but node:crypto
    const raw = Buffer.from(hook.signing.publicKey!.slice('whpk_'.length), 'base64');
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
      format: 'jwk',
    });
    const signed = Buffer.from(`${id}.${timestamp}.${req.rawBody}`);
    const sig = Buffer.from(signature.slice('v1a,'.length), 'base64');
    expect(verify(null, signed, key, sig)).toBe(true);
    expect(verify(null, Buffer.from(`${id}.${timestamp}.${req.rawBody} `), key, sig)).toBe(false);

    const headers = { id, timestamp, signature };
    expect(verifyEd25519WebhookSignature(req.rawBody, headers, hook.signing.publicKey!)).toBe(true);
    expect(verifyEd25519WebhookSignature(`${req.rawBody}x`, headers, hook.signing.publicKey!)).toBe(false);
    // the standardwebhooks package (1.1) verifies v1 only: it does not accept v1a
    expect(() =>
      new StandardWebhook(hook.secret).verify(req.rawBody, {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': signature,
      }),
    ).toThrow();
    // the HMAC header keeps working with the whsec_ secret
    expect(String(req.headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('keeps HMAC v1 as the default', async () => {
    const dev = await newDeveloper(app, 'hmac');
    const r = await receiver();
    const hook = await createHook(dev, r.url, ['tool.called']);
    expect(hook.signing).toEqual({ algorithm: 'hmac-sha256', publicKey: null });
    await trigger(dev);
    const [req] = await r.waitFor(1);
    expect(() =>
      new StandardWebhook(hook.secret.slice('whsec_'.length)).verify(req.rawBody, {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      }),
    ).not.toThrow();
    const bad = await api(dev, 'POST', '/webhooks', {
      name: 'x',
      url: r.url,
      events: ['tool.called'],
      signing: { algorithm: 'rsa' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join('\n')).toMatch(/^signing\.algorithm: /m);
  });
});

/** How many runs (continue-as-new included) the workflow `id` has had. */
async function collectRuns(id: string): Promise<{ executions: number }> {
  let executions = 0;
  for await (const _ of app.ctx.temporal.workflow.list({ query: `WorkflowId = '${id}'` })) executions++;
  return { executions };
}
