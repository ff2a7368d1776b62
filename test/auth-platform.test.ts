import {
  call,
  type Developer,
  newDeveloper,
  startTestApp,
  type TestApp,
  withAppAndDeveloper,
} from './support/test-app';

describe('platform v2 authentication (API keys)', () => {
  let app: TestApp;
  let dev: Developer;
  withAppAndDeveloper((a, d) => {
    app = a;
    dev = d;
  });

  const secrets = (token?: string, headers?: Record<string, string>) =>
    call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token, headers });

  it('accepts a valid key', async () => {
    const res = await secrets(dev.liveKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: [], pagination: { total: 0, limit: 50, offset: 0 } });
  });

  it.each([
    ['missing header', undefined, undefined, /Missing Authorization header/],
    ['not a bearer header', undefined, { authorization: 'Basic abc' }, /Malformed Authorization header/],
    ['malformed key', 'sk_live_nope', undefined, /Malformed API key/],
    ['unknown key', `pk_live_${'A'.repeat(40)}`, undefined, /Invalid API key/],
  ])('401 for %s', async (_name, token, headers, message) => {
    const res = await secrets(token, headers);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(message), code: 'UNAUTHORIZED' });
  });

  it('401 (never a 400) for an ID token that is not a complete console call, saying nothing of console tokens', async () => {
    for (const headers of [undefined, { 'x-console-environment': 'staging' }]) {
      const res = await secrets(dev.token, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: 'Malformed API key: expected pk_live_… or pk_test_…',
        code: 'UNAUTHORIZED',
      });
    }
    // with its environment named, the same token is the console's call
    expect((await secrets(dev.token, { 'x-console-environment': 'live' })).status).toBe(200);
  });

  it('401 for a revoked key, on the very next request, on every API instance', async () => {
    const other = await startTestApp();
    try {
      const created = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
        token: dev.token,
        body: { name: 'short-lived' },
      });
      const key = created.body.key.fullKey;
      expect((await call(other.baseUrl, 'GET', '/api/v2/developers/secrets', { token: key })).status).toBe(
        200,
      );
      const revoked = await call(app.baseUrl, 'DELETE', `/api/v1/developers/keys/${created.body.key.id}`, {
        token: dev.token,
      });
      expect(revoked.status).toBe(200);
      const next = await call(other.baseUrl, 'GET', '/api/v2/developers/secrets', { token: key });
      expect(next.status).toBe(401);
      expect(next.body.error).toMatch(/revoked/);
    } finally {
      await other.close();
    }
  });

  it('keeps live and test environments apart: a key never sees the other environment', async () => {
    const put = await call(app.baseUrl, 'PUT', '/api/v2/developers/secrets/LIVE_ONLY', {
      token: dev.liveKey,
      body: { value: 'v' },
    });
    expect(put.status).toBe(201);
    const testList = await secrets(dev.testKey);
    expect(testList.body.data).toEqual([]);
    const del = await call(app.baseUrl, 'DELETE', '/api/v2/developers/secrets/LIVE_ONLY', {
      token: dev.testKey,
    });
    expect(del.status).toBe(404);
    expect(del.body.code).toBe('NOT_FOUND');
    expect((await secrets(dev.liveKey)).body.data.map((s: { name: string }) => s.name)).toEqual([
      'LIVE_ONLY',
    ]);
  });

  it('answers 404 (never 403) for another account’s resources', async () => {
    const intruder = await newDeveloper(app, 'intruder');
    await call(app.baseUrl, 'PUT', '/api/v2/developers/secrets/MINE', {
      token: dev.liveKey,
      body: { value: 'x' },
    });
    const del = await call(app.baseUrl, 'DELETE', '/api/v2/developers/secrets/MINE', {
      token: intruder.liveKey,
    });
    expect(del.status).toBe(404);
    expect((await secrets(intruder.liveKey)).body.data).toEqual([]);
    const revoke = await call(app.baseUrl, 'GET', '/api/v1/developers/keys', { token: intruder.token });
    const intruderKeyIds = revoke.body.keys.map((k: { id: string }) => k.id);
    const mine = await call(app.baseUrl, 'GET', '/api/v1/developers/keys', { token: dev.token });
    const myKeyId = mine.body.keys[0].id;
    expect(intruderKeyIds).not.toContain(myKeyId);
    const steal = await call(app.baseUrl, 'DELETE', `/api/v1/developers/keys/${myKeyId}`, {
      token: intruder.token,
    });
    expect(steal.status).toBe(404);
  });

  it('403 FORBIDDEN when the key lacks the scope', async () => {
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
      token: dev.token,
      body: { name: 'read-only', environment: 'live', scopes: ['secrets:read'] },
    });
    const key = created.body.key.fullKey;
    expect(created.body.key.scopes).toEqual(['secrets:read']);
    expect((await secrets(key)).status).toBe(200);
    const write = await call(app.baseUrl, 'PUT', '/api/v2/developers/secrets/NOPE', {
      token: key,
      body: { value: 'v' },
    });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({
      success: false,
      error: 'This API key lacks the "secrets:write" scope',
      code: 'FORBIDDEN',
    });
  });
});
