import http from 'node:http';
import { exportJWK, generateKeyPair, type JWK, type KeyLike, SignJWT } from 'jose';
import { signDevToken } from '../src/auth/dev-idp';
import { call, setPlan, startTestApp, type TestApp } from './support/test-app';

/** A real identity provider's JWKS endpoint, served over HTTP by the test. */
async function startJwksServer(jwks: { keys: JWK[] }): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(jwks));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'voice-console';

describe('console v1 authentication (ID tokens verified against a JWKS)', () => {
  let app: TestApp;
  let jwks: { url: string; close(): Promise<void> };
  let privateKey: KeyLike;
  let otherKey: KeyLike;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey as KeyLike;
    otherKey = (await generateKeyPair('RS256')).privateKey as KeyLike;
    jwks = await startJwksServer({
      keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' }],
    });
    app = await startTestApp({ AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE, AUTH_JWKS_URL: jwks.url });
  });
  afterAll(async () => {
    await app.close();
    await jwks.close();
  });

  const sign = (
    claims: { iss?: string; aud?: string; exp?: number | string; sub?: string; email?: string },
    key = privateKey,
  ) =>
    new SignJWT({ email: claims.email ?? 'jwks-user@example.com' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(claims.iss ?? ISSUER)
      .setAudience(claims.aud ?? AUDIENCE)
      .setSubject(claims.sub ?? 'user-123')
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? '5m')
      .sign(key);

  const me = (token?: string) => call(app.baseUrl, 'GET', '/api/v1/developers/me', { token });

  it('creates the account on first use and returns the same one after', async () => {
    const first = await me(await sign({ sub: 'first-use' }));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      publisherId: expect.stringMatching(/^pub_/),
      email: 'jwks-user@example.com',
      plan: 'free',
      reviewer: false,
    });
    const again = await me(await sign({ sub: 'first-use' }));
    expect(again.body.publisherId).toBe(first.body.publisherId);
  });

  it('creates exactly one account under concurrent first calls', async () => {
    const token = await sign({ sub: 'concurrent' });
    const results = await Promise.all(Array.from({ length: 5 }, () => me(token)));
    expect(new Set(results.map((r) => r.body.publisherId)).size).toBe(1);
  });

  it.each([
    ['expired', () => sign({ exp: Math.floor(Date.now() / 1000) - 600 }), /expired/],
    ['wrong issuer', () => sign({ iss: 'https://evil.example/' }), /iss/],
    ['wrong audience', () => sign({ aud: 'someone-else' }), /aud/],
    ['signed by another key', () => sign({}, otherKey), /Invalid ID token/],
    [
      'unsigned (alg none)',
      async () => {
        const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
        const now = Math.floor(Date.now() / 1000);
        return `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ iss: ISSUER, aud: AUDIENCE, sub: 'x', iat: now, exp: now + 300 })}.`;
      },
      /Invalid ID token/,
    ],
    ['garbage', async () => 'not-a-jwt', /Invalid ID token/],
    [
      'a dev IdP token when a real IdP is configured',
      () => signDevToken(app.dataDir, 'dev@example.com'),
      /Invalid ID token|iss/,
    ],
  ])('401 for an %s token', async (_name, make, message) => {
    const res = await me(await make());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(message), code: 'UNAUTHORIZED' });
  });

  it('401 without a token', async () => {
    const res = await me();
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  describe('remembered verifications', () => {
    it('refuses a token once it has expired, although it was accepted (and remembered) before', async () => {
      const exp = Math.floor(Date.now() / 1000) + 2;
      const token = await sign({ sub: 'short-lived', exp });
      expect((await me(token)).status).toBe(200);
      expect((await me(token)).status).toBe(200); // answered from the remembered verification
      // past exp and jose's 5-second clock tolerance
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 + 5_500 - Date.now()));
      const late = await me(token);
      expect(late.status).toBe(401);
      expect(late.body.error).toMatch(/expired/);
    }, 20_000);

    it('verifies a different token of the same account on its own, and refuses a forged twin', async () => {
      const first = await sign({ sub: 'two-tokens', exp: '5m' });
      const second = await sign({ sub: 'two-tokens', exp: '10m' });
      expect(second).not.toBe(first);
      const a = await me(first);
      const b = await me(second);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.body.publisherId).toBe(a.body.publisherId);
      // the remembered token's header and claims with another key's signature
      const forged = await sign({ sub: 'two-tokens', exp: '5m' }, otherKey);
      const [h, p] = first.split('.');
      const twin = `${h}.${p}.${forged.split('.')[2]}`;
      const refused = await me(twin);
      expect(refused.status).toBe(401);
      expect((await me(first)).status).toBe(200);
    });

    it('reads the plan afresh on every request of a remembered token', async () => {
      const token = await sign({ sub: 'plan-change' });
      const before = await me(token);
      expect(before.body.plan).toBe('free');
      await setPlan(app, before.body.publisherId, 'pro');
      expect((await me(token)).body.plan).toBe('pro');
      await setPlan(app, before.body.publisherId, 'free');
      expect((await me(token)).body.plan).toBe('free');
    });

    it('stores the email a newer token of the same account carries', async () => {
      const first = await me(await sign({ sub: 'email-change', email: 'old@example.com' }));
      const second = await me(await sign({ sub: 'email-change', email: 'new@example.com' }));
      expect(second.body).toEqual({ ...first.body, email: 'new@example.com' });
      expect((await me(await sign({ sub: 'email-change', email: 'new@example.com' }))).body.email).toBe(
        'new@example.com',
      );
    });

    it('still refuses a revoked API key on the very next request', async () => {
      const token = await sign({ sub: 'revoker' });
      const created = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
        token,
        body: { name: 'soon revoked', environment: 'live' },
      });
      expect(created.status).toBe(200);
      const key = created.body.key.fullKey as string;
      const list = () => call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: key });
      expect((await list()).status).toBe(200);
      const revoked = await call(app.baseUrl, 'DELETE', `/api/v1/developers/keys/${created.body.key.id}`, {
        token,
      });
      expect(revoked.status).toBe(200);
      const after = await list();
      expect(after.status).toBe(401);
      expect(after.body.error).toMatch(/revoked/);
    });
  });
});

describe('console v1 with the local dev identity provider (AUTH_* unset)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('accepts tokens printed by `npm run token` and rejects tampered ones', async () => {
    const token = await signDevToken(app.dataDir, 'Someone@Example.com');
    const ok = await call(app.baseUrl, 'GET', '/api/v1/developers/me', { token });
    expect(ok.status).toBe(200);
    expect(ok.body.email).toBe('Someone@Example.com');
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'dev|admin@example.com' })).toString('base64url')}.${s}`;
    const bad = await call(app.baseUrl, 'GET', '/api/v1/developers/me', { token: forged });
    expect(bad.status).toBe(401);
  });
});
