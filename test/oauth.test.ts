import { randomUUID } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { housekeepingScheduleId } from '../src/temporal/schedules';
import { taskQueuesFor } from '../src/temporal/task-queues';
import { TEST_ENV } from './support/env';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { eventually, startReceiver } from './support/receiver';
import { call, type Developer, newDeveloper, type TestApp, withAppAndDeveloper } from './support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
);

let oauth: OAuth2Server;
const tokenRequests: Record<string, string>[] = [];
const issued: string[] = [];
const revocations: unknown[] = [];
beforeAll(async () => {
  // a real OAuth 2.0 authorization server from npm, on a free port
  oauth = new OAuth2Server();
  await oauth.issuer.keys.generate('RS256');
  await oauth.start(0, '127.0.0.1');
  oauth.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    token.payload.jti = randomUUID(); // every issued token distinct, even within one second
  });
  oauth.service.on(
    'beforeResponse',
    (response: { body: { access_token?: string } }, req: { body: Record<string, string> }) => {
      tokenRequests.push(req.body);
      issued.push(response.body.access_token ?? '');
    },
  );
  oauth.service.on('beforeRevoke', (response: unknown) => {
    revocations.push(response);
  });
});
afterAll(() => oauth.stop());

let mcp: McpTestServer;
beforeAll(async () => {
  mcp = await startMcpTestServer();
});
afterAll(() => mcp.close());

const api = (method: string, path: string, body?: unknown, key = dev.liveKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

async function createProvider(key = dev.liveKey) {
  const base = oauth.issuer.url!;
  const res = await api(
    'POST',
    '/oauth/providers',
    {
      name: 'Calendar',
      authorizationUrl: `${base}/authorize`,
      tokenUrl: `${base}/token`,
      revocationUrl: `${base}/revoke`,
      clientId: 'voice-client',
      clientSecret: 'client-secret-987',
      scopes: ['calendar.read', 'offline_access'],
      authorizeParams: { access_type: 'offline' },
    },
    key,
  );
  expect(res.status).toBe(201);
  return res.body.data;
}

/** authorize → the provider's redirect (followed by hand) → our callback. */
async function connect(providerId: string, key = dev.liveKey) {
  const redirectUri = `${app.baseUrl}/api/v2/developers/oauth/callback`;
  const started = await api('POST', '/oauth/authorize', { providerId, redirectUri }, key);
  expect(started.status).toBe(201);
  const redirect = await fetch(started.body.data.authorizationUrl, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  const location = new URL(redirect.headers.get('location')!);
  const callback = await call(app.baseUrl, 'GET', `${location.pathname}${location.search}`);
  return { started: started.body.data, location, callback };
}

describe('OAuth', () => {
  it('registers providers with a write-only, encrypted client secret', async () => {
    const provider = await createProvider();
    expect(provider).toMatchObject({
      name: 'Calendar',
      clientId: 'voice-client',
      scopes: ['calendar.read', 'offline_access'],
    });
    expect(provider.id).toMatch(/^oap_/);
    expect(JSON.stringify(provider)).not.toContain('client-secret-987');
    const [row] = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select client_secret_ciphertext from oauth_providers where id = ?', [provider.id]);
    expect(row.client_secret_ciphertext).not.toContain('client-secret-987');
    const list = await api('GET', '/oauth/providers');
    expect(list.body.data.map((p: any) => p.id)).toContain(provider.id);
    const put = await api('PUT', `/oauth/providers/${provider.id}`, {
      name: 'Calendar 2',
      clientSecret: 'rotated',
    });
    expect(put.body.data.name).toBe('Calendar 2');
    const bad = await api('POST', '/oauth/providers', {
      name: 'x',
      authorizationUrl: 'nope',
      tokenUrl: 'ftp://x',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join('\n')).toMatch(/clientId/);
  });

  it('authorize → callback with state and PKCE (S256) stores the token; state cannot be reused or forged', async () => {
    const provider = await createProvider();
    const { started, location, callback } = await connect(provider.id);
    const authUrl = new URL(started.authorizationUrl);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authUrl.searchParams.get('state')).toBe(started.state);
    expect(authUrl.searchParams.get('scope')).toBe('calendar.read offline_access');
    expect(authUrl.searchParams.get('access_type')).toBe('offline');
    expect(authUrl.searchParams.get('client_id')).toBe('voice-client');

    expect(callback.status).toBe(200);
    const token = callback.body.data;
    expect(token).toMatchObject({
      providerId: provider.id,
      providerName: 'Calendar',
      status: 'active',
      refreshable: true,
    });
    expect(Date.parse(token.expiresAt)).toBeGreaterThan(Date.now());
    // the PKCE verifier went to the token endpoint and matched the challenge
    expect(tokenRequests.at(-1)).toMatchObject({
      grant_type: 'authorization_code',
      code_verifier: expect.any(String),
    });

    const replay = await call(app.baseUrl, 'GET', `${location.pathname}${location.search}`);
    expect(replay.status).toBe(400);
    expect(replay.body.validationErrors).toEqual(['state: unknown, expired or already used']);
    const forged = await call(
      app.baseUrl,
      'GET',
      `/api/v2/developers/oauth/callback?code=abc&state=forged-state`,
    );
    expect(forged.status).toBe(400);
    const denied = await call(
      app.baseUrl,
      'GET',
      `/api/v2/developers/oauth/callback?error=access_denied&state=x`,
    );
    expect(denied.status).toBe(400);

    const tokens = await api('GET', '/oauth/tokens');
    expect(tokens.body.data.map((t: any) => t.id)).toContain(token.id);
    const listed = tokens.body.data.find((t: any) => t.id === token.id);
    expect(Object.keys(listed).sort()).toEqual(
      [
        'createdAt',
        'expiresAt',
        'id',
        'providerId',
        'providerName',
        'refreshable',
        'scopes',
        'status',
        'tokenType',
        'updatedAt',
      ].sort(),
    );
  });

  it('refreshes an expired access token when an MCP call uses it, then revokes at the provider', async () => {
    const provider = await createProvider();
    const { callback } = await connect(provider.id);
    const tokenId = callback.body.data.id;
    const server = await api('POST', '/mcp-servers', {
      name: 'cal',
      endpoint: mcp.url,
      oauthTokenId: tokenId,
    });
    expect(server.body.data.status).toBe('connected');
    const firstBearer = mcp.requests.at(-1)?.authorization;
    expect(firstBearer).toMatch(/^Bearer ey/);

    // the access token expires: the next use refreshes it first, once
    await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(`update oauth_tokens set expires_at = now() - interval '1 minute' where id = ?`, [tokenId]);
    const before = tokenRequests.length;
    const test = await api('POST', `/mcp-servers/${server.body.data.id}/test`);
    expect(test.body.data.connected).toBe(true);
    expect(tokenRequests.slice(before).map((r) => r.grant_type)).toEqual(['refresh_token']);
    const secondBearer = mcp.requests.at(-1)?.authorization;
    expect(secondBearer).toMatch(/^Bearer ey/);
    expect(secondBearer).not.toBe(firstBearer);
    expect(secondBearer).toBe(`Bearer ${issued.at(-1)}`);
    const refreshed = (await api('GET', '/oauth/tokens')).body.data.find((t: any) => t.id === tokenId);
    expect(refreshed.status).toBe('active');
    expect(Date.parse(refreshed.expiresAt)).toBeGreaterThan(Date.now());

    // a webhook tool using the same connection sends the current access token
    const receiver = await startReceiver();
    try {
      const tool = await api('POST', '/tools', {
        name: 'calendar',
        type: 'webhook',
        config: { url: receiver.url, method: 'POST', oauthTokenId: tokenId },
      });
      const run = await api('POST', `/tools/${tool.body.data.id}/test`, { arguments: {} });
      expect(run.body.data.success).toBe(true);
      expect(receiver.requests[0].headers.authorization).toBe(secondBearer);
    } finally {
      await receiver.close();
    }

    const revoked = await api('DELETE', `/oauth/tokens/${tokenId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: tokenId, status: 'revoked', providerRevoked: true });
    expect(revocations).toHaveLength(2); // the refresh token and the access token, at the revocation URL
    const afterRevoke = await api('POST', `/mcp-servers/${server.body.data.id}/test`);
    expect(afterRevoke.status).toBe(409);
  });

  it('the hourly housekeeping schedule deletes authorizations that expired unused, and only those', async () => {
    const provider = await createProvider();
    const start = async () =>
      (await api('POST', '/oauth/authorize', { providerId: provider.id })).body.data.state as string;
    const [abandoned, pending] = [await start(), await start()];
    const db = app.ctx.orm.em.fork().getConnection();
    await db.execute(
      `update oauth_authorizations set expires_at = now() - interval '2 hours' where state = ?`,
      [abandoned],
    );
    const schedule = app.ctx.temporal.schedule.getHandle(
      housekeepingScheduleId(taskQueuesFor(TEST_ENV.taskQueue()).background),
    );
    const described = await schedule.describe();
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'housekeepingWorkflow' });
    expect(described.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
    await schedule.trigger();
    const states = async () =>
      (
        await db.execute<{ state: string }[]>(
          'select state from oauth_authorizations where state in (?, ?)',
          [abandoned, pending],
        )
      ).map((r) => r.state);
    await eventually(async () => {
      expect(await states()).toEqual([pending]);
      return true;
    });
    const refused = await call(
      app.baseUrl,
      'GET',
      `/api/v2/developers/oauth/callback?code=x&state=${abandoned}`,
    );
    expect(refused.body.validationErrors).toEqual(['state: unknown, expired or already used']);
  });

  it('keeps providers and tokens to their account', async () => {
    const provider = await createProvider();
    const other = await newDeveloper(app, 'oauth-other');
    expect((await api('GET', `/oauth/providers/${provider.id}`, undefined, other.liveKey)).status).toBe(404);
    expect((await api('POST', '/oauth/authorize', { providerId: provider.id }, other.liveKey)).status).toBe(
      404,
    );
    const { callback } = await connect(provider.id);
    expect(
      (await api('DELETE', `/oauth/tokens/${callback.body.data.id}`, undefined, other.liveKey)).status,
    ).toBe(404);
    const foreign = await api(
      'POST',
      '/mcp-servers',
      { name: 'x', endpoint: mcp.url, oauthTokenId: callback.body.data.id },
      other.liveKey,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.validationErrors).toEqual(['oauthTokenId: no such OAuth token']);
  });
});
