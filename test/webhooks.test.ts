import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { verifyWebhookSignature } from '../src/index';
import { AccountIdKey, EventTypeKey, WebhookIdKey } from '../src/temporal/search-attributes';
import { eventually, type Receiver, startReceiver } from './support/receiver';
import {
  call,
  type Developer,
  newDeveloper,
  setPlan,
  startTestApp,
  type TestApp,
  withAppAndDeveloper,
} from './support/test-app';

let app: TestApp;
let dev: Developer;
// enterprise: many webhooks below
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  {},
  { plan: 'enterprise' },
);

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

const api = (method: string, path: string, body?: unknown, key = dev.testKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

async function createWebhook(body: Record<string, unknown> = {}, key = dev.testKey) {
  const res = await api(
    'POST',
    '/webhooks',
    { name: 'hook', url: receiver.url, events: ['tool.called'], ...body },
    key,
  );
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string; status: string };
}

const trigger = (type: string, extra: Record<string, unknown> = {}, key = dev.testKey) =>
  api('POST', '/events/trigger', { type, ...extra }, key);

async function logs(webhookId: string, query = '', key = dev.testKey) {
  const res = await api('GET', `/webhooks/${webhookId}/logs${query}`, undefined, key);
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

async function finished(webhookId: string, count = 1, key = dev.testKey) {
  return eventually(async () => {
    const entries = await logs(webhookId, '', key);
    return entries.length >= count && entries.every((e) => e.status !== 'pending') ? entries : undefined;
  }, 30_000);
}

describe('webhook endpoints', () => {
  it('creates with a whsec_ secret shown once, encrypted at rest', async () => {
    const res = await api('POST', '/webhooks', {
      name: 'Orders',
      url: receiver.url,
      events: ['session.started', 'tool.failed'],
    });
    expect(res.status).toBe(201);
    const hook = res.body.data;
    expect(hook).toMatchObject({
      name: 'Orders',
      url: receiver.url,
      events: ['session.started', 'tool.failed'],
      enabled: true,
      status: 'active',
      personaId: null,
      lastDeliveredAt: null,
    });
    expect(hook.id).toMatch(/^wh_/);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32);

    const got = await api('GET', `/webhooks/${hook.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.secret).toBeUndefined();
    expect(got.body.data.deliveryStats).toEqual({
      total: 0,
      successful: 0,
      failed: 0,
      pending: 0,
      averageLatencyMs: 0,
    });
    const [row] = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select secret_ciphertext from webhooks where id = ?', [hook.id]);
    expect(row.secret_ciphertext).not.toContain(hook.secret.slice(6));
    expect(JSON.stringify(await api('GET', '/webhooks'))).not.toContain(hook.secret);
  });

  it('validates fields and names them', async () => {
    const res = await api('POST', '/webhooks', {
      name: '',
      url: 'ftp://example.com',
      events: ['tool.called', 'nope.nope'],
      extra: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    const errors = res.body.validationErrors.join('\n');
    expect(errors).toMatch(/name:/);
    expect(errors).toMatch(/events\.1:/);
    expect(errors).toMatch(/extra: unknown field/);
    const url = await api('POST', '/webhooks', {
      name: 'x',
      url: 'ftp://example.com',
      events: ['tool.called'],
    });
    expect(url.status).toBe(400);
    expect(url.body.validationErrors).toEqual(['url: must be an http or https URL']);
    const dup = await api('POST', '/webhooks', {
      name: 'x',
      url: receiver.url,
      events: ['tool.called', 'tool.called'],
    });
    expect(dup.body.validationErrors).toEqual(['events: must not repeat an event type']);
    const emptyPut = await api('PUT', '/webhooks/wh_x', {});
    expect(emptyPut.status).toBe(400);
    const bigLimit = await api('GET', '/webhooks/wh_x/logs?limit=201');
    expect(bigLimit.status).toBe(400);
  });

  it('requires https when the deployment does not allow insecure targets', async () => {
    const strict = await startTestApp({ OUTBOUND_ALLOW_HTTP: 'false', OUTBOUND_ALLOW_PRIVATE: 'false' });
    try {
      const post = (url: string) =>
        call(strict.baseUrl, 'POST', '/api/v2/developers/webhooks', {
          token: dev.liveKey,
          body: { name: 'x', url, events: ['tool.called'] },
        });
      expect((await post('http://example.com/hook')).body.validationErrors).toEqual([
        'url: must be an https URL',
      ]);
      expect((await post('https://169.254.169.254/latest')).body.validationErrors).toEqual([
        'url: must not point to a private or reserved address',
      ]);
      expect((await post('https://[::1]/x')).status).toBe(400);
      expect((await post('https://localhost/x')).status).toBe(400);
    } finally {
      await strict.close();
    }
  });

  it('lists with status filter and pagination, updates, deletes; other accounts get 404', async () => {
    const other = await newDeveloper(app, 'other');
    const a = await createWebhook({ name: 'a' }, other.liveKey);
    const b = await createWebhook({ name: 'b' }, other.liveKey);
    const list = await api('GET', '/webhooks?limit=1', undefined, other.liveKey);
    expect(list.body.pagination).toEqual({ total: 2, limit: 1, offset: 0 });
    expect(list.body.data[0]).toMatchObject({ id: b.id, status: 'active', lastDeliveredAt: null });
    expect(Object.keys(list.body.data[0]).sort()).toEqual(
      [
        'createdAt',
        'disabledAt',
        'disabledReason',
        'disablesAt',
        'enabled',
        'events',
        'failingSince',
        'id',
        'includeTestRuns',
        'kind',
        'lastDeliveredAt',
        'name',
        'personaId',
        'signing',
        'status',
        'url',
      ].sort(),
    );

    const put = await api('PUT', `/webhooks/${a.id}`, { enabled: false, name: 'renamed' }, other.liveKey);
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.data).sort()).toEqual(['enabled', 'id', 'name', 'updatedAt']);
    const disabled = await api('GET', '/webhooks?status=disabled', undefined, other.liveKey);
    expect(disabled.body.data.map((w: any) => w.id)).toEqual([a.id]);
    expect(disabled.body.data[0]).toMatchObject({ status: 'disabled', disabledReason: 'manual' });
    const active = await api('GET', '/webhooks?status=active', undefined, other.liveKey);
    expect(active.body.data.map((w: any) => w.id)).toEqual([b.id]);

    // another account, and the other environment of the same account, see nothing
    expect((await api('GET', `/webhooks/${a.id}`)).status).toBe(404);
    expect((await api('GET', `/webhooks/${a.id}`, undefined, other.testKey)).status).toBe(404);
    expect((await api('PUT', `/webhooks/${a.id}`, { name: 'x' })).status).toBe(404);
    expect((await api('DELETE', `/webhooks/${a.id}`)).status).toBe(404);
    expect((await api('GET', `/webhooks/${a.id}/logs`)).status).toBe(404);

    const del = await api('DELETE', `/webhooks/${a.id}`, undefined, other.liveKey);
    expect(del.body).toEqual({ success: true, data: { deleted: true, id: a.id } });
    expect((await api('GET', `/webhooks/${a.id}`, undefined, other.liveKey)).status).toBe(404);
  });

  it('enforces the plan limit: 5 webhooks on free, more on pro', async () => {
    const limited = await newDeveloper(app, 'limited');
    for (let i = 0; i < 5; i++) await createWebhook({ name: `h${i}` }, limited.liveKey);
    const sixth = await api(
      'POST',
      '/webhooks',
      { name: 'six', url: receiver.url, events: ['tool.called'] },
      limited.liveKey,
    );
    expect(sixth.status).toBe(403);
    expect(sixth.body.code).toBe('PLAN_LIMIT_REACHED');
    await setPlan(app, limited.publisherId, 'pro');
    await createWebhook({ name: 'six' }, limited.liveKey);
  });

  it('needs the webhooks scopes', async () => {
    const keyRes = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
      token: dev.token,
      body: { name: 'read-only', environment: 'test', scopes: ['webhooks:read'] },
    });
    const readOnly = keyRes.body.key.fullKey;
    expect((await api('GET', '/webhooks', undefined, readOnly)).status).toBe(200);
    const denied = await api(
      'POST',
      '/webhooks',
      { name: 'x', url: receiver.url, events: ['tool.called'] },
      readOnly,
    );
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
  });
});

describe('event delivery', () => {
  it('delivers a triggered sandbox event, signed for our helper, Stripe and Standard Webhooks verifiers', async () => {
    const hook = await createWebhook({ events: ['tool.called', 'session.ended'] });
    const res = await trigger('tool.called', { data: { toolName: 'check_weather' } });
    expect(res.status).toBe(201);
    const { event, matchingWebhooks } = res.body.data;
    expect(matchingWebhooks).toEqual([hook.id]);
    expect(event).toMatchObject({ type: 'tool.called', publisherId: dev.publisherId });
    expect(event.id).toMatch(/^evt_/);
    expect(event.data).toMatchObject({ toolName: 'check_weather', arguments: expect.any(Object) });

    const [request] = await receiver.waitFor(1);
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^VoicePlatform-Webhooks\//);
    expect(request.headers['x-service-event-id']).toBe(event.id);
    expect(request.headers['x-service-event-type']).toBe('tool.called');
    expect(JSON.parse(request.rawBody)).toEqual(event);

    const header = request.headers['x-service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(request.rawBody, header, hook.secret)).toBe(true);
    // Stripe's own verifier: HMAC keyed with the whole whsec_ string, `t.body`
    const stripeEvent = new Stripe('sk_test_unused').webhooks.constructEvent(
      request.rawBody,
      header,
      hook.secret,
      300,
    );
    expect((stripeEvent as unknown as { id: string }).id).toBe(event.id);
    // Standard Webhooks' reference verifier
    const verified = new StandardWebhook(hook.secret).verify(request.rawBody, {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    });
    expect(verified).toEqual(event);
    expect(request.headers['webhook-id']).toBe(event.id);

    const [entry] = await finished(hook.id);
    expect(entry).toMatchObject({
      eventId: event.id,
      eventType: 'tool.called',
      status: 'delivered',
      attempts: 1,
      statusCode: 200,
    });
    expect(entry.id).toMatch(/^del_/);
    expect(entry.latencyMs).toEqual(expect.any(Number));
    // the operator's view: the del_ id is the workflow id, with searchable account, webhook and type
    const handle = app.ctx.temporal.workflow.getHandle(entry.id);
    expect(await handle.result()).toMatchObject({ status: 'delivered', attempts: 1 });
    const described = await handle.describe();
    expect(described.type).toBe('deliverWebhookWorkflow');
    expect(described.status.name).toBe('COMPLETED');
    expect(described.typedSearchAttributes.get(AccountIdKey)).toBe(dev.publisherId);
    expect(described.typedSearchAttributes.get(WebhookIdKey)).toBe(hook.id);
    expect(described.typedSearchAttributes.get(EventTypeKey)).toBe('tool.called');
    const found = [];
    for await (const wf of app.ctx.temporal.workflow.list({ query: `WebhookId = "${hook.id}"` }))
      found.push(wf.workflowId);
    expect(found).toEqual([entry.id]);
    // each attempt heartbeats while a slow receiver answers: a dead worker's attempt is retried
    // after 6 s without a heartbeat, not after its start-to-close timeout
    const history = await handle.fetchHistory();
    const scheduled = history.events?.find((e) => e.activityTaskScheduledEventAttributes);
    expect(Number(scheduled?.activityTaskScheduledEventAttributes?.heartbeatTimeout?.seconds)).toBe(6);

    const got = await api('GET', `/webhooks/${hook.id}`);
    expect(got.body.data.lastDeliveredAt).toBe(entry.deliveredAt);
    expect(got.body.data.deliveryStats).toEqual({
      total: 1,
      successful: 1,
      failed: 0,
      pending: 0,
      averageLatencyMs: entry.latencyMs,
    });
  });

  it('sandbox triggers need a test key', async () => {
    const res = await trigger('session.started', {}, dev.liveKey);
    expect(res.status).toBe(403);
    const bad = await trigger('no.such.type');
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors[0]).toMatch(/^type:/);
  });

  it('filters by type and persona; a disabled webhook receives nothing', async () => {
    const own = await newDeveloper(app, 'filters');
    // a filter names one of the account's own personas (another's, or none, is a 404)
    const made = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: own.token,
      body: { manifest: { identity: { name: 'Alpha' } } },
    });
    const persona = made.body.persona.id as string;
    const subscribed = await createWebhook({ events: ['session.started'] }, own.testKey);
    const forPersona = await createWebhook({ events: ['session.started'], personaId: persona }, own.testKey);
    const otherType = await createWebhook({ events: ['session.ended'] }, own.testKey);
    const disabled = await createWebhook({ events: ['session.started'], enabled: false }, own.testKey);

    const withPersona = await trigger('session.started', { personaId: persona }, own.testKey);
    expect(withPersona.body.data.matchingWebhooks.sort()).toEqual([subscribed.id, forPersona.id].sort());
    const otherPersona = await trigger('session.started', { personaId: 'persona_beta2' }, own.testKey);
    expect(otherPersona.body.data.matchingWebhooks).toEqual([subscribed.id]);

    await receiver.waitFor(3);
    await finished(subscribed.id, 2, own.testKey);
    await finished(forPersona.id, 1, own.testKey);
    expect((await logs(subscribed.id, '', own.testKey)).length).toBe(2);
    expect((await logs(forPersona.id, '', own.testKey)).map((l) => l.eventId)).toEqual([
      withPersona.body.data.event.id,
    ]);
    expect(await logs(otherType.id, '', own.testKey)).toEqual([]);
    expect(await logs(disabled.id, '', own.testKey)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests).toHaveLength(3);
  });

  it('retries on the schedule: fail twice then succeed → 3 attempts, same bytes and event id', async () => {
    receiver.respond([500, 302]);
    const hook = await createWebhook();
    const { event } = (await trigger('tool.called')).body.data;
    const requests = await receiver.waitFor(3);
    expect(new Set(requests.map((r) => r.rawBody)).size).toBe(1);
    expect(requests.map((r) => r.headers['x-service-event-id'])).toEqual([event.id, event.id, event.id]);
    expect(requests.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(requests[1].receivedAt - requests[0].receivedAt).toBeGreaterThanOrEqual(900);

    const [entry] = await finished(hook.id);
    expect(entry).toMatchObject({ status: 'delivered', attempts: 3, statusCode: 200 });
    const detail = await api('GET', `/webhooks/${hook.id}/logs/${entry.id}`);
    expect(detail.body.data.event).toEqual(event);
    expect(detail.body.data.attemptLog.map((a: any) => [a.attempt, a.success, a.statusCode])).toEqual([
      [1, false, 500],
      [2, false, 302],
      [3, true, 200],
    ]);
    expect(detail.body.data.attemptLog[0]).toMatchObject({
      error: 'Receiver answered 500',
      responseBody: 'failure 500',
    });
    expect(detail.body.data.attemptLog[1].error).toMatch(/redirects are not followed/);
  });

  it('fails after five attempts, marks the webhook failing, recovers on the next success, and replays', async () => {
    receiver.respond([], 503);
    const hook = await createWebhook();
    const { event } = (await trigger('tool.called')).body.data;
    await receiver.waitFor(5);
    const [entry] = await finished(hook.id);
    expect(entry).toMatchObject({
      status: 'failed',
      attempts: 5,
      statusCode: 503,
      error: 'Receiver answered 503',
    });
    expect(entry.lastAttemptAt).toEqual(expect.any(String));
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(5);
    expect((await api('GET', `/webhooks/${hook.id}`)).body.data.status).toBe('failing');
    expect((await logs(hook.id, '?status=failed')).map((l) => l.id)).toEqual([entry.id]);
    expect(await logs(hook.id, '?status=delivered')).toEqual([]);

    // replay the failed delivery: same event, a new delivery; success makes the webhook active again
    receiver.respond([], 200);
    const replay = await api('POST', `/webhooks/${hook.id}/logs/${entry.id}/retry`);
    expect(replay.status).toBe(201);
    expect(replay.body.data).toMatchObject({ eventId: event.id, replayOf: entry.id, status: 'pending' });
    await receiver.waitFor(6);
    expect(JSON.parse(receiver.requests[5].rawBody).id).toBe(event.id);
    await eventually(async () => (await api('GET', `/webhooks/${hook.id}`)).body.data.status === 'active');
    const stats = (await api('GET', `/webhooks/${hook.id}`)).body.data.deliveryStats;
    expect(stats).toMatchObject({ total: 2, successful: 1, failed: 1, pending: 0 });
    const pendingReplay = await api('POST', `/webhooks/${hook.id}/logs/del_nope/retry`);
    expect(pendingReplay.status).toBe(404);
  });

  it('disabling a webhook stops its pending deliveries', async () => {
    receiver.respond([], 500);
    const hook = await createWebhook();
    await trigger('tool.called');
    await receiver.waitFor(1);
    const put = await api('PUT', `/webhooks/${hook.id}`, { enabled: false });
    expect(put.body.data).toMatchObject({ enabled: false });
    const [entry] = await finished(hook.id);
    expect(entry).toMatchObject({ status: 'failed', error: 'Webhook disabled' });
    const seen = receiver.requests.length;
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.requests.length).toBe(seen);
    expect((await api('GET', `/webhooks/${hook.id}`)).body.data.status).toBe('disabled');
  });

  it('test endpoint: one signed webhook.test attempt, answered synchronously and logged', async () => {
    const hook = await createWebhook();
    const res = await api('POST', `/webhooks/${hook.id}/test`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('10');
    expect(res.body.data).toMatchObject({ delivered: true, statusCode: 200 });
    expect(res.body.data.latencyMs).toEqual(expect.any(Number));
    expect(Date.parse(res.body.data.testedAt)).not.toBeNaN();
    const [request] = receiver.requests;
    expect(request.headers['x-service-event-type']).toBe('webhook.test');
    expect(
      verifyWebhookSignature(request.rawBody, request.headers['x-service-signature'] as string, hook.secret),
    ).toBe(true);
    const [entry] = await logs(hook.id);
    expect(entry).toMatchObject({
      id: res.body.data.deliveryId,
      eventType: 'webhook.test',
      test: true,
      status: 'delivered',
    });

    receiver.respond([], 500);
    const failed = await api('POST', `/webhooks/${hook.id}/test`);
    expect(failed.body.data).toMatchObject({
      delivered: false,
      statusCode: 500,
      error: 'Receiver answered 500',
    });
    // a test never moves the webhook to failing
    expect((await api('GET', `/webhooks/${hook.id}`)).body.data.status).toBe('active');
    expect((await api('POST', '/webhooks/wh_missing/test')).status).toBe(404);
  });

  it('test endpoint answers undelivered, naming the delivery, when no worker runs the attempt in time', async () => {
    const lonely = await startTestApp({
      TEMPORAL_TASK_QUEUE: `nobody-${process.pid}`,
      WEBHOOK_TIMEOUT_MS: '200',
    });
    try {
      const hook = await createWebhook();
      const res = await call(lonely.baseUrl, 'POST', `/api/v2/developers/webhooks/${hook.id}/test`, {
        token: dev.testKey,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ delivered: false, statusCode: null, latencyMs: null });
      expect(res.body.data.error).toBe(
        `the test attempt did not finish within 10200 ms; see delivery ${res.body.data.deliveryId}`,
      );
      expect(receiver.requests).toHaveLength(0);
      await lonely.ctx.temporal.workflow.getHandle(res.body.data.deliveryId).terminate('test over');
    } finally {
      await lonely.close();
    }
  }, 30_000);

  it('rotating the secret signs with both secrets for 24 hours', async () => {
    const hook = await createWebhook();
    const rotated = await api('POST', `/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);
    const hours = (Date.parse(previousSecretExpiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    await api('POST', `/webhooks/${hook.id}/test`);
    const [request] = receiver.requests;
    const header = request.headers['x-service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(request.rawBody, header, secret)).toBe(true);
    expect(verifyWebhookSignature(request.rawBody, header, hook.secret)).toBe(true);
    expect(verifyWebhookSignature(request.rawBody, header, `whsec_${'A'.repeat(43)}=`)).toBe(false);
    const headers = {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    };
    expect(() => new StandardWebhook(secret).verify(request.rawBody, headers)).not.toThrow();
    expect(() => new StandardWebhook(hook.secret).verify(request.rawBody, headers)).not.toThrow();
  });
});
