import { call, type Developer, newDeveloper, setPlan, startTestApp, type TestApp } from './support/test-app';

const get = (app: TestApp, key: string) =>
  call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: key });
const put = (app: TestApp, key: string, i: number) =>
  call(app.baseUrl, 'PUT', `/api/v2/developers/secrets/S${i}`, { token: key, body: { value: 'v' } });

describe('rate limits (docs/api-contract.md "Rate limits"): plan and operation-class budgets, shared by every API instance', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('reports X-RateLimit-* on every response, the tighter budget first (free plan 60 < read 200)', async () => {
    const dev = await newDeveloper(a);
    const res = await get(a, dev.liveKey);
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    const error = await call(a.baseUrl, 'GET', '/api/v2/developers/secrets?limit=999', {
      token: dev.liveKey,
    });
    expect(error.status).toBe(400);
    expect(error.headers.get('x-ratelimit-remaining')).toBe('58');
  });

  it('429 RATE_LIMIT_EXCEEDED with Retry-After once the plan budget is spent, counted across instances', async () => {
    const dev: Developer = await newDeveloper(a);
    for (let i = 0; i < 30; i++) expect((await get(a, dev.liveKey)).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await get(b, dev.liveKey)).status).toBe(200);
    const over = await get(b, dev.liveKey);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      success: false,
      error: 'Rate limit exceeded: 60 requests per minute for the free plan',
      code: 'RATE_LIMIT_EXCEEDED',
    });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    // the sandbox environment has its own budget
    expect((await get(a, dev.testKey)).status).toBe(200);
  });

  it('applies the class budget even on enterprise (write: 50 per minute), and pro raises the plan budget', async () => {
    const dev = await newDeveloper(a);
    await setPlan(a, dev.publisherId, 'enterprise');
    for (let i = 0; i < 50; i++) expect((await put(a, dev.liveKey, i)).status).toBeLessThan(300);
    const over = await put(b, dev.liveKey, 99);
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('Rate limit exceeded: 50 requests per minute for write operations');
    expect(over.headers.get('x-ratelimit-limit')).toBe('50');
    // reads are another class, so they still pass
    const read = await get(a, dev.liveKey);
    expect(read.status).toBe(200);
    expect(read.headers.get('x-ratelimit-limit')).toBe('200');

    const pro = await newDeveloper(a);
    await setPlan(a, pro.publisherId, 'pro');
    const res = await get(a, pro.liveKey);
    expect(res.headers.get('x-ratelimit-limit')).toBe('200'); // read 200 is tighter than pro 600
  });

  it("the console's calls (its ID token and X-Console-Environment) spend from the console's budget, never from the keys'", async () => {
    const dev = await newDeveloper(a);
    const consoleGet = (environment?: string) =>
      call(a.baseUrl, 'GET', '/api/v2/developers/secrets', {
        token: dev.token,
        headers: environment ? { 'x-console-environment': environment } : {},
      });
    // without its environment it is no console call: a bad API key's 401 (test/auth-platform.test.ts)
    expect((await consoleGet()).status).toBe(401);
    expect((await consoleGet('staging')).status).toBe(401);
    // the console sees the environment it names
    await put(a, dev.testKey, 1);
    const test = await consoleGet('test');
    expect(test.status).toBe(200);
    expect(test.body.data.map((s: { name: string }) => s.name)).toEqual(['S1']);
    expect((await consoleGet('live')).body.data).toEqual([]);
    // the console's budget is its own, whatever the plan: a free account's console gets far more than
    // its keys' 60 a minute (a person clicking never meets it), and a script replaying the ID token is
    // still stopped; the live key's budget is untouched
    let polls = 0;
    while ((await consoleGet('live')).status === 200) polls++;
    expect(polls).toBeGreaterThan(60);
    expect(polls).toBeLessThanOrEqual(600);
    const over = await consoleGet('live');
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('Rate limit exceeded: 600 requests per minute for the console');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    const production = await get(a, dev.liveKey);
    expect(production.status).toBe(200);
    expect(production.headers.get('x-ratelimit-remaining')).toBe('59');
    // and a key's calls leave the console's budget alone
    expect((await call(a.baseUrl, 'GET', '/api/v1/developers/me', { token: dev.token })).status).toBe(429);
  });

  it('limits unauthenticated requests per address', async () => {
    const strict = await startTestApp({ ANONYMOUS_RATE_LIMIT: '3', TRUST_PROXY: 'loopback' });
    try {
      // A client address of its own, as a load balancer on loopback would forward it.
      const client = `198.51.100.${Math.floor(Math.random() * 250) + 1}, 10.0.0.${process.pid % 250}`;
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        const res = await call(strict.baseUrl, 'GET', '/api/v2/developers/secrets', {
          token: `pk_live_${'Z'.repeat(40)}`,
          headers: { 'x-forwarded-for': client },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await strict.close();
    }
  });

  it('RATE_LIMITS=off disables limiting (benchmarks only)', async () => {
    const open = await startTestApp({ RATE_LIMITS: 'off' });
    try {
      const dev = await newDeveloper(open);
      const res = await get(open, dev.liveKey);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    } finally {
      await open.close();
    }
  });
});
