import { z } from 'zod';
import { TEST_ADMIN_TOKEN } from './support/env';
import { call, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const WhoAmI = z.looseObject({ success: z.literal(true) });

describe('marketplace gateway headers and the operator API', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    // Marketplace endpoints arrive in a later issue; these probes exercise the same roots and pipeline.
    app.roots.marketplaceUser.route({
      method: 'get',
      path: '/__whoami/user',
      summary: 'test only',
      success: { description: 'the caller', schema: WhoAmI },
      handler: ({ auth }) => ({ success: true as const, ...auth }),
    });
    app.roots.marketplacePublisher.route({
      method: 'get',
      path: '/__whoami/publisher',
      summary: 'test only',
      success: { description: 'the caller', schema: WhoAmI },
      handler: ({ auth }) => ({ success: true as const, ...auth }),
    });
  });
  afterAll(() => app.close());

  it('user endpoints need x-user-id', async () => {
    const missing = await call(app.baseUrl, 'GET', '/api/marketplace/__whoami/user');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ success: false, error: 'Missing x-user-id header', code: 'UNAUTHORIZED' });
    const blank = await call(app.baseUrl, 'GET', '/api/marketplace/__whoami/user', {
      headers: { 'x-user-id': ' ' },
    });
    expect(blank.status).toBe(401);
    const ok = await call(app.baseUrl, 'GET', '/api/marketplace/__whoami/user', {
      headers: { 'x-user-id': 'usr_1' },
    });
    expect(ok.body).toEqual({ success: true, userId: 'usr_1' });
  });

  it('publisher endpoints need x-publisher-id and x-publisher-name', async () => {
    const onlyId = await call(app.baseUrl, 'GET', '/api/marketplace/__whoami/publisher', {
      headers: { 'x-publisher-id': 'pub_1' },
    });
    expect(onlyId.status).toBe(401);
    expect(onlyId.body.error).toBe('Missing or empty x-publisher-name header');
    const ok = await call(app.baseUrl, 'GET', '/api/marketplace/__whoami/publisher', {
      headers: { 'x-publisher-id': 'pub_1', 'x-publisher-name': 'Acme' },
    });
    expect(ok.body).toEqual({ success: true, publisherId: 'pub_1', publisherName: 'Acme' });
  });

  it('operators set plans with ADMIN_TOKEN; anything else is 401; bad input changes nothing', async () => {
    const dev = await newDeveloper(app);
    const path = `/api/admin/accounts/${dev.publisherId}/plan`;
    expect((await call(app.baseUrl, 'PUT', path, { body: { plan: 'pro' } })).status).toBe(401);
    expect((await call(app.baseUrl, 'PUT', path, { token: 'wrong', body: { plan: 'pro' } })).status).toBe(
      401,
    );
    expect((await call(app.baseUrl, 'PUT', path, { token: dev.token, body: { plan: 'pro' } })).status).toBe(
      401,
    );
    const bad = await call(app.baseUrl, 'PUT', path, { token: TEST_ADMIN_TOKEN, body: { plan: 'gold' } });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors[0]).toMatch(/^plan: /);
    const me = () => call(app.baseUrl, 'GET', '/api/v1/developers/me', { token: dev.token });
    expect((await me()).body.plan).toBe('free');
    const ok = await call(app.baseUrl, 'PUT', path, { token: TEST_ADMIN_TOKEN, body: { plan: 'pro' } });
    expect(ok.body).toEqual({
      success: true,
      publisherId: dev.publisherId,
      plan: 'pro',
      updatedAt: expect.any(String),
    });
    expect((await me()).body.plan).toBe('pro');
    const unknown = await call(app.baseUrl, 'PUT', '/api/admin/accounts/pub_nobody/plan', {
      token: TEST_ADMIN_TOKEN,
      body: { plan: 'pro' },
    });
    expect(unknown.status).toBe(404);
  });

  it('the admin API is closed when ADMIN_TOKEN is unset', async () => {
    const closed = await startTestApp({ ADMIN_TOKEN: '' });
    try {
      const res = await call(closed.baseUrl, 'PUT', '/api/admin/accounts/pub_x/plan', {
        token: TEST_ADMIN_TOKEN,
        body: { plan: 'pro' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/ADMIN_TOKEN is not configured/);
    } finally {
      await closed.close();
    }
  });
});
