import http from 'node:http';
import {
  ConflictError,
  ConnectionError,
  ForbiddenError,
  NotFoundError,
  RateLimitExceededError,
  UnauthorizedError,
  ValidationFailedError,
  VoicePlatform,
} from '../sdk/src';
import { type Developer, newDeveloper, setPlan, startTestApp, type TestApp } from './support/test-app';

/**
 * A proxy in front of the app that forwards every request, except that it cuts the connection of
 * the first `cut` POSTs after the app has answered them: the server committed, the client heard
 * nothing.
 */
async function cuttingProxy(target: string, cut: number) {
  const posts: { path: string; key: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      delete headers['content-length'];
      const answer = await fetch(target + (req.url ?? ''), {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await answer.arrayBuffer());
      if (req.method === 'POST')
        posts.push({ path: req.url ?? '', key: req.headers['idempotency-key'] as string });
      if (req.method === 'POST' && posts.length <= cut) {
        req.socket.destroy(); // the answer is lost on the way back
        return;
      }
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the SDK: typed errors and safe retries', () => {
  let app: TestApp;
  let dev: Developer;
  let client: VoicePlatform;

  beforeAll(async () => {
    app = await startTestApp();
    dev = await newDeveloper(app, 'sdk-errors');
    await setPlan(app, dev.publisherId, 'enterprise');
    client = new VoicePlatform({ apiKey: dev.testKey, baseUrl: app.baseUrl });
  }, 60_000);
  afterAll(() => app?.close());

  const hook = (name: string) => ({
    name,
    url: 'https://example.com/hooks/x',
    events: ['tool.failed' as const],
  });

  it('throws a class per code, each with status, code and request id', async () => {
    const invalid = await client.webhooks.create({ name: '', url: 'not a url', events: [] }).catch((e) => e);
    expect(invalid).toBeInstanceOf(ValidationFailedError);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', requestId: expect.any(String) });
    expect(invalid.validationErrors.join(' ')).toContain('name');

    const anonymous = new VoicePlatform({ apiKey: 'pk_test_nope', baseUrl: app.baseUrl });
    const refused = await anonymous.webhooks.list().catch((e) => e);
    expect(refused).toBeInstanceOf(UnauthorizedError);
    expect(refused).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });

    const consoleClient = new VoicePlatform({ apiKey: dev.token, baseUrl: app.baseUrl });
    const readOnly = await consoleClient.console.keys.create({
      name: 'ro',
      environment: 'test',
      scopes: ['webhooks:read'],
    });
    const readOnlyKey = (readOnly as { key: { fullKey: string } }).key.fullKey;
    const reader = new VoicePlatform({ apiKey: readOnlyKey, baseUrl: app.baseUrl });
    const forbidden = await reader.webhooks.create(hook('nope')).catch((e) => e);
    expect(forbidden).toBeInstanceOf(ForbiddenError);
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });

    const missing = await client.webhooks.get('wh_missing').catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: expect.any(String) });

    // the same Idempotency-Key with another body: a final 409, not retried
    await client.webhooks.create(hook('first'), { idempotencyKey: 'sdk-conflict-key' });
    const conflict = await client.webhooks
      .create(hook('second'), { idempotencyKey: 'sdk-conflict-key' })
      .catch((e) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  it('throws RateLimitExceededError once the plan budget is spent, with Retry-After', async () => {
    const free = await newDeveloper(app, 'sdk-rate');
    const limited = new VoicePlatform({ apiKey: free.testKey, baseUrl: app.baseUrl, maxRetries: 0 });
    let error: unknown;
    for (let i = 0; i < 80 && !error; i++)
      error = await limited.webhooks.list().then(
        () => undefined,
        (e) => e,
      );
    expect(error).toBeInstanceOf(RateLimitExceededError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: expect.any(Number) });
  });

  it('retries a create whose answer was cut after the server committed it: one webhook, not two', async () => {
    const proxy = await cuttingProxy(app.baseUrl, 1);
    try {
      const viaProxy = new VoicePlatform({ apiKey: dev.testKey, baseUrl: proxy.url });
      const created = await viaProxy.webhooks.create(hook('cut-once'));
      expect(proxy.posts).toHaveLength(2);
      expect(proxy.posts[0].key).toMatch(/^[0-9a-f-]{36}$/);
      expect(proxy.posts[1].key).toBe(proxy.posts[0].key); // the same key on the retry
      const named = (await client.webhooks.list({ limit: 200 }).toArray()).filter(
        (w) => w.name === 'cut-once',
      );
      expect(named.map((w) => w.id)).toEqual([created.id]);
    } finally {
      await proxy.close();
    }
  });

  it('gives up with a ConnectionError after its retries, and honours AbortSignal', async () => {
    const proxy = await cuttingProxy(app.baseUrl, 10);
    try {
      const viaProxy = new VoicePlatform({ apiKey: dev.testKey, baseUrl: proxy.url, maxRetries: 2 });
      await expect(viaProxy.webhooks.create(hook('cut-always'))).rejects.toBeInstanceOf(ConnectionError);
      expect(proxy.posts).toHaveLength(3);
      // an action whose route takes no Idempotency-Key is not sent twice
      const webhook = await client.webhooks.create(hook('rotate-me'));
      await expect(viaProxy.webhooks.rotateSecret(webhook.id)).rejects.toBeInstanceOf(ConnectionError);
      expect(proxy.posts.filter((p) => p.path.endsWith('/rotate-secret'))).toHaveLength(1);
      const aborted = new AbortController();
      aborted.abort(new Error('stopped by the caller'));
      await expect(client.webhooks.list({}, { signal: aborted.signal })).rejects.toThrow(
        'stopped by the caller',
      );
    } finally {
      await proxy.close();
    }
  });

  it('retries 429, 5xx and an in-flight 409, honouring Retry-After, and keeps the Idempotency-Key', async () => {
    // a scripted server, to answer what the platform answers only under load or a race
    const script = [
      { status: 429, retryAfter: '1', code: 'RATE_LIMIT_EXCEEDED' },
      { status: 503, retryAfter: '0', code: 'SERVICE_UNAVAILABLE' },
      { status: 409, retryAfter: '0', code: 'CONFLICT' },
    ];
    const seen: { at: number; key: string | undefined }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ at: Date.now(), key: req.headers['idempotency-key'] as string | undefined });
      const next = script.shift();
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-request-id', `req-${seen.length}`);
      if (next) {
        res.writeHead(next.status, { 'retry-after': next.retryAfter });
        res.end(JSON.stringify({ success: false, error: 'later', code: next.code }));
      } else res.end(JSON.stringify({ success: true, data: { id: 'wh_scripted' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const scripted = new VoicePlatform({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 3 });
      const created = await scripted.webhooks.create(hook('scripted'));
      expect(created.id).toBe('wh_scripted');
      expect(seen).toHaveLength(4);
      expect(new Set(seen.map((s) => s.key)).size).toBe(1);
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950); // Retry-After: 1
      script.push({ status: 500, retryAfter: '0', code: 'INTERNAL' });
      const once = new VoicePlatform({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
      await expect(once.webhooks.get('x')).rejects.toMatchObject({
        status: 500,
        code: 'INTERNAL',
        requestId: 'req-5',
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
