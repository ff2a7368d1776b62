import net from 'node:net';
import { importJWK, SignJWT } from 'jose';
import { z } from 'zod';
import { DEV_ALGORITHM, DEV_AUDIENCE, DEV_ISSUER, loadDevIdpKeys, signDevToken } from '../src/auth/dev-idp';
import { TEST_ENV } from './support/env';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * The shared HTTP pipeline under attack: ID-token claims, NUL characters, deep JSON, database
 * outages and OPTIONS, each against a real app, database and identity-provider key.
 */
describe('shared HTTP pipeline hardening', () => {
  let app: TestApp;
  let dev: Developer;
  beforeAll(async () => {
    app = await startTestApp();
    dev = await newDeveloper(app, 'sec');
  });
  afterAll(() => app?.close());

  describe('ID-token claims are type-checked (401, never another account, never a 500)', () => {
    /** A token signed by the trusted dev IdP key with exactly `claims` (no defaults added). */
    const signRaw = async (claims: Record<string, unknown>) => {
      const { privateJwk } = await loadDevIdpKeys(app.dataDir);
      const key = await importJWK(privateJwk, DEV_ALGORITHM);
      return new SignJWT(claims).setProtectedHeader({ alg: DEV_ALGORITHM, kid: privateJwk.kid }).sign(key);
    };
    const now = () => Math.floor(Date.now() / 1000);
    const base = () => ({ iss: DEV_ISSUER, aud: DEV_AUDIENCE, iat: now(), exp: now() + 300 });
    const me = (token: string) => call(app.baseUrl, 'GET', '/api/v1/developers/me', { token });

    it('refuses subjects that are objects, arrays, numbers or too long, and bad emails', async () => {
      const victim = `dev|${dev.email}`;
      for (const claims of [
        { sub: { $ne: 'x' } },
        { sub: { $like: 'dev|sec%' } },
        { sub: { $in: [victim] } },
        { sub: [victim] },
        { sub: 12345 },
        { sub: '' },
        { sub: 'x'.repeat(256) },
        { sub: 'nul\u0000sub' },
        { sub: 'ok-subject', email: 'e'.repeat(400) },
        { sub: 'ok-subject', email: 42 },
        { sub: 'ok-subject', email: { $ne: null } },
      ]) {
        const res = await me(await signRaw({ ...base(), ...claims }));
        expect([JSON.stringify(claims), res.status, res.body.code]).toEqual([
          JSON.stringify(claims),
          401,
          'UNAUTHORIZED',
        ]);
        expect(res.body.publisherId).toBeUndefined();
      }
    });

    it('requires exp and refuses an iat in the future beyond a small skew', async () => {
      const { exp: _exp, ...withoutExp } = base();
      const noExp = await me(await signRaw({ ...withoutExp, sub: 'no-exp' }));
      expect(noExp.status).toBe(401);
      expect(noExp.body.error).toMatch(/exp/);

      const future = await me(await signRaw({ ...base(), iat: now() + 3600, sub: 'future-iat' }));
      expect(future.status).toBe(401);
      expect(future.body.error).toMatch(/iat/);

      const stringExp = await me(await signRaw({ ...base(), exp: String(now() + 300), sub: 'string-exp' }));
      expect(stringExp.status).toBe(401);

      // a few seconds of clock skew are fine
      const skewed = await me(await signRaw({ ...base(), iat: now() + 10, sub: 'skewed-iat' }));
      expect(skewed.status).toBe(200);
      const valid = await me(await signRaw({ ...base(), sub: 'plain-valid', email: 'plain@example.com' }));
      expect(valid.status).toBe(200);
      expect(valid.body.email).toBe('plain@example.com');
    });

    it('the dev IdP refuses to sign an email the verifier would refuse', async () => {
      await expect(signDevToken(app.dataDir, `${'a'.repeat(300)}@example.com`)).rejects.toThrow(/email/);
    });
  });

  describe('NUL characters are refused as a 400 naming the field', () => {
    const nulLine = (field: string) => [`${field}: must not contain NUL characters`];

    it('in body fields, nested body fields, query values and path ids', async () => {
      const body = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
        token: dev.token,
        body: { name: 'a\u0000b', environment: 'test' },
      });
      expect(body.status).toBe(400);
      expect(body.body).toMatchObject({ code: 'VALIDATION_FAILED', validationErrors: nulLine('name') });

      const secret = await call(app.baseUrl, 'PUT', '/api/v2/developers/secrets/NUL_TEST', {
        token: dev.testKey,
        body: { value: 'x\u0000' },
      });
      expect(secret.status).toBe(400);
      expect(secret.body.validationErrors).toEqual(nulLine('value'));

      const query = await call(app.baseUrl, 'GET', '/api/v2/developers/webhooks?limit=%00', {
        token: dev.testKey,
      });
      expect(query.status).toBe(400);
      expect(query.body.validationErrors).toEqual(nulLine('limit'));

      const path = await call(app.baseUrl, 'GET', '/api/v2/developers/webhooks/wh_%00abc', {
        token: dev.testKey,
      });
      expect(path.status).toBe(400);
      expect(path.body).toMatchObject({ code: 'VALIDATION_FAILED', validationErrors: nulLine('path') });
    });

    it('on the unauthenticated OAuth callback', async () => {
      const res = await call(app.baseUrl, 'GET', '/api/v2/developers/oauth/callback?state=%00');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', validationErrors: nulLine('state') });
    });

    it('on a route without a params schema: the handler never sees it', async () => {
      const seen: unknown[] = [];
      app.roots.platform.route({
        method: 'get',
        path: '/security-probe/:id',
        summary: 'test probe',
        success: { description: 'probe', schema: z.object({ id: z.string() }) },
        handler: ({ req }) => {
          seen.push({ ...req.params }); // no params schema: the raw, decoded path parameters
          return { id: String(req.params.id) };
        },
      });
      const ok = await call(app.baseUrl, 'GET', '/api/v2/developers/security-probe/abc', {
        token: dev.testKey,
      });
      expect(ok.status).toBe(200);
      const nul = await call(app.baseUrl, 'GET', '/api/v2/developers/security-probe/a%00b', {
        token: dev.testKey,
      });
      expect(nul.status).toBe(400);
      expect(nul.body.validationErrors).toEqual(nulLine('path'));
      expect(seen).toEqual([{ id: 'abc' }]);
    });
  });

  describe('deeply nested JSON bodies', () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

    it('are refused at parsing with a 400, on authenticated and public routes alike', async () => {
      for (const [path, token] of [
        ['/api/v2/developers/events/trigger', dev.testKey],
        ['/api/v1/developers/keys', dev.token],
        ['/api/v2/developers/no-such-route', undefined],
      ] as const) {
        const res = await call(app.baseUrl, 'POST', path, { token, rawBody: nested(5000) });
        expect([path, res.status]).toEqual([path, 400]);
        expect(res.body).toMatchObject({
          success: false,
          code: 'VALIDATION_FAILED',
          validationErrors: ['body: nests deeper than 64 levels'],
        });
      }
      const arrays = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
        token: dev.token,
        rawBody: `${'['.repeat(5000)}${']'.repeat(5000)}`,
      });
      expect(arrays.status).toBe(400);
      expect((await call(app.baseUrl, 'GET', '/healthz')).status).toBe(200);
    });

    it('up to 64 levels, and brackets inside strings, are parsed as before', async () => {
      const deepOk = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
        token: dev.token,
        rawBody: `{"name":"deep","environment":"test","extra":${nested(63)}}`,
      });
      expect(deepOk.status).toBe(400); // parsed, then refused by the schema: unknown field
      expect(deepOk.body.validationErrors).toEqual(['extra: unknown field']);
      const brackets = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
        token: dev.token,
        body: { name: `${'[{'.repeat(40)}\\"`, environment: 'test' },
      });
      expect(brackets.status).toBe(200);
    });
  });

  describe('OPTIONS', () => {
    it('answers 204 with Allow listing the methods of the path, without CORS headers', async () => {
      for (const [path, allow] of [
        ['/api/v2/developers/secrets/X', 'DELETE, OPTIONS, PUT'],
        ['/api/v2/developers/webhooks', 'GET, HEAD, OPTIONS, POST'],
        ['/api/v2/developers/oauth/callback', 'GET, HEAD, OPTIONS'],
        ['/healthz', 'GET, HEAD, OPTIONS'],
      ]) {
        const res = await fetch(app.baseUrl + path, { method: 'OPTIONS' });
        expect([path, res.status, res.headers.get('allow')]).toEqual([path, 204, allow]);
        expect(await res.text()).toBe('');
        expect(res.headers.get('x-request-id')).toBeTruthy();
        for (const name of res.headers.keys()) expect(name).not.toMatch(/^access-control-/);
      }
    });

    it('an unknown path is the JSON 404', async () => {
      const res = await call(app.baseUrl, 'OPTIONS', '/api/v2/developers/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    });
  });
});

/**
 * A TCP proxy in front of PostgreSQL that the test can take down (cutting every connection and
 * dropping new ones at once) and bring back. It keeps its port throughout, so no other process can
 * take it in between.
 */
async function startDatabaseProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let accepting = true;
  const server = net.createServer((client) => {
    if (!accepting) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port: () => (server.address() as net.AddressInfo).port,
    up: () => {
      accepting = true;
    },
    down: () => {
      accepting = false;
      cut();
    },
    close: async () => {
      accepting = false;
      const closed = new Promise((resolve) => server.close(resolve));
      cut();
      await closed;
    },
  };
}

describe('database outage', () => {
  let app: TestApp;
  let proxy: Awaited<ReturnType<typeof startDatabaseProxy>>;
  let dev: Developer;

  beforeAll(async () => {
    // knex reports each cut pooled connection with console.log; expected here
    const log = console.log;
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      if (!String(args[0]).startsWith('Connection Error')) log(...args);
    });
    const real = new URL(TEST_ENV.databaseUrl());
    proxy = await startDatabaseProxy({ host: real.hostname, port: Number(real.port || 5432) });
    const viaProxy = new URL(real);
    viaProxy.port = String(proxy.port());
    app = await startTestApp({ DATABASE_URL: viaProxy.toString() });
    dev = await newDeveloper(app, 'outage');
  });
  afterAll(async () => {
    proxy?.up();
    try {
      await app?.close();
    } finally {
      await proxy?.close();
      jest.restoreAllMocks();
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while the database is unreachable, then recovers', async () => {
    const requests = () => [
      call(app.baseUrl, 'GET', '/api/v1/developers/me', { token: dev.token }),
      call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.testKey }),
    ];
    for (const res of await Promise.all(requests())) expect(res.status).toBe(200);

    proxy.down(); // pooled connections are cut, new ones dropped
    for (let round = 0; round < 2; round++) {
      for (const res of await Promise.all(requests())) {
        expect(res.status).toBe(503);
        expect(res.body).toEqual({
          success: false,
          code: 'SERVICE_UNAVAILABLE',
          error: expect.stringMatching(/database/i),
        });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }

    proxy.up();
    for (const res of await Promise.all(requests())) expect(res.status).toBe(200);
  });
});
