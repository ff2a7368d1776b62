import { signDevToken } from '../src/auth/dev-idp';
import { call, startTestApp, type TestApp } from './support/test-app';

/** The console's server side: its configuration, the development sign-in, security headers. */
describe('web console serving', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ TEMPORAL_UI_URL: 'http://127.0.0.1:8233' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('tells the console how to sign in and where the Temporal Web UI is, never cached', async () => {
    const res = await fetch(`${app.baseUrl}/console/config.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      auth: { mode: 'dev' },
      temporal: { uiUrl: 'http://127.0.0.1:8233', namespace: 'default' },
    });
  });

  it('signs a development ID token the console API accepts, like npm run token', async () => {
    const res = await call(app.baseUrl, 'POST', '/console/auth/dev-token', {
      body: { email: 'Dev@Example.com' },
    });
    expect(res.status).toBe(200);
    const me = await call(app.baseUrl, 'GET', '/api/v1/developers/me', { token: res.body.idToken });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('Dev@Example.com');
    // the same account as a token from the command line
    const cli = await signDevToken(app.dataDir, 'Dev@Example.com');
    const again = await call(app.baseUrl, 'GET', '/api/v1/developers/me', { token: cli });
    expect(again.body.publisherId).toBe(me.body.publisherId);
  });

  it('refuses a bad dev-token body with the error body of docs/api-contract.md "Errors", naming the field', async () => {
    for (const [body, field] of [
      [{}, 'email'],
      [{ email: 'nope' }, 'email'],
      [{ email: 'a@example.com', admin: true }, 'admin'],
    ] as const) {
      const res = await call(app.baseUrl, 'POST', '/console/auth/dev-token', { body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      expect(res.body.validationErrors.join(' ')).toContain(field);
    }
  });

  it('has no local sign-in once an OIDC provider is configured', async () => {
    const oidc = await startTestApp({
      AUTH_ISSUER: 'https://login.example.com/',
      AUTH_AUDIENCE: 'console-client',
      AUTH_JWKS_URL: 'https://login.example.com/.well-known/jwks.json',
    });
    try {
      const config = (await (await fetch(`${oidc.baseUrl}/console/config.json`)).json()) as { auth: unknown };
      expect(config.auth).toEqual({
        mode: 'oidc',
        issuer: 'https://login.example.com/',
        clientId: 'console-client',
        scope: 'openid email profile',
      });
      const res = await fetch(`${oidc.baseUrl}/console/config.json`);
      expect(res.headers.get('content-security-policy')).toContain(
        "connect-src 'self' https://login.example.com",
      );
      const token = await call(oidc.baseUrl, 'POST', '/console/auth/dev-token', {
        body: { email: 'a@example.com' },
      });
      expect(token.status).toBe(404);
      expect(token.body.code).toBe('NOT_FOUND');
    } finally {
      await oidc.close();
    }
  });

  it('sends security headers on console pages; unknown assets are JSON 404s', async () => {
    const page = await fetch(`${app.baseUrl}/console/webhooks/wh_1`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // built: the SPA's index.html (never cached); not built: a 503 saying how to build it
    if (page.status === 200) {
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(await page.text()).toContain('<div id="root">');
    } else {
      expect(page.status).toBe(503);
      expect(await page.text()).toContain('npm run build:web');
    }
    const missing = await call(app.baseUrl, 'GET', '/console/assets/missing-abcdefgh.js');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
    const traversal = await fetch(`${app.baseUrl}/console/assets/..%2F..%2Fpackage.json`);
    expect(traversal.status).toBe(404);
  });
});
