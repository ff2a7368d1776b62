import { TEST_ADMIN_TOKEN } from './support/env';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { call, startTestApp, type TestApp } from './support/test-app';

const MKT = '/api/marketplace';

/** Publisher views, verification, browse with full-text search, and installations. */
describe('marketplace catalog: publisher views, browse, installations', () => {
  let app: TestApp;
  let mcp: McpTestServer;
  const ACME = { 'x-publisher-id': 'pub_cat_acme', 'x-publisher-name': 'Acme Catalog' };
  const ZED = { 'x-publisher-id': 'pub_cat_zed', 'x-publisher-name': 'Zed Labs' };
  const USER = { 'x-user-id': 'usr_cat_1' };
  const get = (path: string, headers: Record<string, string> = {}) =>
    call(app.baseUrl, 'GET', MKT + path, { headers });
  const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    call(app.baseUrl, method, MKT + path, { headers, body });
  const approve = (id: string) =>
    call(app.baseUrl, 'POST', `/api/admin/marketplace/items/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
  const manifest = (
    publisher: Record<string, string>,
    id: string,
    name: string,
    short: string,
    long: string,
    extra = {},
  ) => ({
    id,
    name,
    version: '1.0.0',
    publisher: { id: publisher['x-publisher-id'], name: publisher['x-publisher-name'] },
    // "catalog": a word only this suite's items carry, so other suites' items in the run's database never show up
    description: { short, long: `${long} Catalog suite.` },
    execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcp.url, toolName: 'add' },
    interface: { llmDescription: short },
    permissions: ['math:compute', 'history:read'],
    ...extra,
  });
  const publish = async (
    publisher: Record<string, string>,
    ...args: [string, string, string, string, object?]
  ) => {
    const res = await send(
      'POST',
      '/publisher/submit',
      { type: 'tool', manifest: manifest(publisher, ...args) },
      publisher,
    );
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    const approved = await approve(args[0]);
    if (approved.status !== 200) throw new Error(JSON.stringify(approved.body));
  };

  beforeAll(async () => {
    app = await startTestApp();
    mcp = await startMcpTestServer();
    await publish(
      ACME,
      'weather-now',
      'Weather Now',
      'Current weather for any city',
      'Forecasts, temperature and rain for cities worldwide.',
    );
    await publish(
      ACME,
      'rain-alerts',
      'Rain Alerts',
      'Warns before it rains',
      'Sends a warning when rain or storms approach; weather radar based.',
    );
    await publish(
      ZED,
      'calendar-sync',
      'Calendar Sync',
      'Syncs your calendar',
      'Books meetings and reads your agenda.',
    );
    await publish(
      ZED,
      'zed-notes',
      'Zed Notes',
      'Take notes by voice',
      'Notes about anything, including the weather.',
    );
    // pending, rejected and being-removed items never show in browse
    await send(
      'POST',
      '/publisher/submit',
      {
        type: 'tool',
        manifest: manifest(ACME, 'weather-pending', 'Weather Pending', 'weather', 'weather weather'),
      },
      ACME,
    );
    await send(
      'POST',
      '/publisher/submit',
      { type: 'tool', manifest: manifest(ACME, 'weather-gone', 'Weather Gone', 'weather', 'weather') },
      ACME,
    );
    await approve('weather-gone');
    await send('DELETE', '/publisher/weather-gone', undefined, ACME);
  });
  afterAll(async () => {
    await app.close();
    await mcp.close();
  });

  it('publisher items, profile with exact stats, one item with its versions; another publisher’s item is not found', async () => {
    const items = await get('/publisher/items', ACME);
    expect(items.status).toBe(200);
    expect(items.body.totalCount).toBe(4);
    expect(items.body.items.map((i: { id: string }) => i.id).sort()).toEqual([
      'rain-alerts',
      'weather-gone',
      'weather-now',
      'weather-pending',
    ]);
    expect(items.body.items.find((i: { id: string }) => i.id === 'weather-now')).toEqual({
      id: 'weather-now',
      name: 'Weather Now',
      type: 'tool',
      version: '1.0.0',
      status: 'approved',
      trustLevel: 'community',
      publishedAt: expect.any(String),
      latestVersion: '1.0.0',
      pendingVersion: null,
      activeInstalls: 0,
      removesAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(items.body.items.find((i: { id: string }) => i.id === 'weather-gone')).toMatchObject({
      status: 'removal_scheduled',
      removesAt: expect.any(String),
    });
    const profile = await get('/publisher/profile', ACME);
    expect(profile.body).toEqual({
      publisherId: 'pub_cat_acme',
      publisherName: 'Acme Catalog',
      verified: false,
      verifiedAt: null,
      trustLevel: 'community',
      stats: { totalTools: 4, totalAgents: 0, approvedItems: 2, pendingItems: 1 },
    });
    const fresh = await get('/publisher/profile', {
      'x-publisher-id': 'pub_cat_new',
      'x-publisher-name': 'New',
    });
    expect(fresh.body.stats).toEqual({ totalTools: 0, totalAgents: 0, approvedItems: 0, pendingItems: 0 });

    expect((await get('/publisher/weather-now', ACME)).body.item.versions).toHaveLength(1);
    for (const path of ['/publisher/weather-now', '/publisher/weather-now/analytics']) {
      expect([path, (await get(path, ZED)).status]).toEqual([path, 404]);
    }
    expect((await send('DELETE', '/publisher/weather-now', undefined, ZED)).status).toBe(404);
    expect((await send('POST', '/publisher/weather-now/restore', undefined, ZED)).status).toBe(404);
    expect((await get('/publisher/items')).status).toBe(401);
    expect((await get('/publisher/items', { 'x-publisher-id': 'pub_cat_acme' })).status).toBe(401);
    const badPeriod = await get('/publisher/weather-now/analytics?period=1y', ACME);
    expect(badPeriod.status).toBe(400);
    expect(badPeriod.body.validationErrors).toEqual([expect.stringMatching(/^period: /)]);
  });

  it('an operator verifies a publisher: its items show verified and trustLevel verified', async () => {
    const admin = (id: string, body: unknown, token = TEST_ADMIN_TOKEN) =>
      call(app.baseUrl, 'PUT', `/api/admin/publishers/${id}/verification`, { token, body });
    expect((await admin('pub_cat_zed', { verified: true }, 'wrong')).status).toBe(401);
    expect((await admin('pub_nobody', { verified: true })).status).toBe(404);
    expect((await admin('pub_cat_zed', { verified: 'yes' })).status).toBe(400);
    const verified = await admin('pub_cat_zed', { verified: true });
    expect(verified.body).toEqual({
      publisher: {
        id: 'pub_cat_zed',
        name: 'Zed Labs',
        verified: true,
        verifiedAt: expect.any(String),
        trustLevel: 'verified',
      },
    });
    expect((await get('/browse/tools/calendar-sync')).body.tool.verification).toEqual({
      trustLevel: 'verified',
      verified: true,
      verifiedAt: verified.body.publisher.verifiedAt,
    });
    expect(
      (await get('/publisher/items', ZED)).body.items.every(
        (i: { trustLevel: string }) => i.trustLevel === 'verified',
      ),
    ).toBe(true);
    expect((await get('/publisher/profile', ZED)).body).toMatchObject({
      verified: true,
      trustLevel: 'verified',
    });
    const onlyVerified = await get('/browse/tools?q=catalog&verified=true');
    expect(onlyVerified.body.tools.map((t: { id: string }) => t.id).sort()).toEqual([
      'calendar-sync',
      'zed-notes',
    ]);
    expect(onlyVerified.body.tools[0]).toMatchObject({ verified: true, trustLevel: 'verified' });
    const community = await get('/browse/tools?q=catalog&verified=false');
    expect(community.body.tools.map((t: { id: string }) => t.id).sort()).toEqual([
      'rain-alerts',
      'weather-now',
    ]);
  });

  it('browse: approved items only, full-text search ranked by relevance, publisher filter, sorts and pages', async () => {
    const all = await get('/browse/tools?q=catalog');
    expect(all.status).toBe(200);
    expect(all.body.totalCount).toBe(4);
    expect(all.body.tools.map((t: { id: string }) => t.id)).not.toEqual(
      expect.arrayContaining(['weather-pending', 'weather-gone']),
    );
    expect(all.body.tools.find((t: { id: string }) => t.id === 'weather-now')).toEqual({
      id: 'weather-now',
      name: 'Weather Now',
      description: 'Current weather for any city',
      version: '1.0.0',
      publisher: { id: 'pub_cat_acme', name: 'Acme Catalog' },
      trustLevel: expect.any(String),
      verified: expect.any(Boolean),
      activeInstalls: 0,
      pricing: { model: 'free' },
      publishedAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    // "weather" is in the name of one, the long description of the others: the name ranks first
    const weather = await get('/browse/tools?q=weather');
    expect(weather.body.tools.map((t: { id: string }) => t.id)).toEqual([
      'weather-now',
      'rain-alerts',
      'zed-notes',
    ]);
    expect(weather.body.totalCount).toBe(3);
    // stemming: "forecasting" finds "Forecasts"; web-search syntax
    expect((await get('/browse/tools?q=forecasting')).body.tools.map((t: { id: string }) => t.id)).toEqual([
      'weather-now',
    ]);
    expect(
      (await get('/browse/tools?q=weather%20-storms')).body.tools.map((t: { id: string }) => t.id),
    ).toEqual(['weather-now', 'zed-notes']);
    expect(
      (await get('/browse/tools?q=%22rain%20alerts%22')).body.tools.map((t: { id: string }) => t.id),
    ).toEqual(['rain-alerts']);
    expect((await get('/browse/tools?q=nothing-matches-this')).body).toEqual({ tools: [], totalCount: 0 });
    expect((await get('/browse/tools?q=weather&publisherId=pub_cat_acme')).body.totalCount).toBe(2);
    expect(
      (await get('/browse/tools?q=weather&sort=name')).body.tools.map((t: { id: string }) => t.id),
    ).toEqual(['rain-alerts', 'weather-now', 'zed-notes']);
    const recent = await get('/browse/tools?q=catalog&sort=recent');
    expect(recent.body.tools.map((t: { id: string }) => t.id)).toEqual([
      'zed-notes',
      'calendar-sync',
      'rain-alerts',
      'weather-now',
    ]);
    const page = await get('/browse/tools?q=catalog&sort=name&limit=2&offset=1');
    expect(page.body).toMatchObject({ totalCount: 4 });
    expect(page.body.tools.map((t: { id: string }) => t.id)).toEqual(['rain-alerts', 'weather-now']);
    expect((await get('/browse/tools?q=catalog&sort=name&limit=2&offset=10')).body).toEqual({
      tools: [],
      totalCount: 4,
    });
    expect((await get('/browse/agents?q=catalog')).body).toEqual({ agents: [], totalCount: 0 });

    const bad = await get('/browse/tools?sort=best&limit=0&verified=maybe&extra=1');
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^sort: /),
        expect.stringMatching(/^limit: /),
        expect.stringMatching(/^verified: /),
        'extra: unknown field',
      ]),
    );
    expect((await get(`/browse/tools?q=${'x'.repeat(201)}`)).status).toBe(400);
  });

  it('tool details (endpoint private) and 404 for unknown, pending, removed, or the wrong type', async () => {
    const detail = await get('/browse/tools/weather-now');
    expect(detail.body).toEqual({
      tool: {
        id: 'weather-now',
        name: 'Weather Now',
        version: '1.0.0',
        description: {
          short: 'Current weather for any city',
          long: 'Forecasts, temperature and rain for cities worldwide. Catalog suite.',
        },
        publisher: { id: 'pub_cat_acme', name: 'Acme Catalog' },
        execution: { runtime: { type: 'mcp', version: '1' }, toolName: 'add', executable: true },
        interface: { llmDescription: 'Current weather for any city' },
        verification: { trustLevel: 'community', verified: false, verifiedAt: null },
        permissions: ['math:compute', 'history:read'],
        pricing: { model: 'free' },
        quotas: { free: 100, pro: 10000, enterprise: 1000000 },
        activeInstalls: 0,
        publishedAt: expect.any(String),
        updatedAt: expect.any(String),
        versions: [{ version: '1.0.0', releasedAt: expect.any(String), changelog: null }],
      },
    });
    expect(JSON.stringify(detail.body)).not.toContain(mcp.url);
    for (const path of [
      '/browse/tools/nope-nope',
      '/browse/tools/weather-pending',
      '/browse/tools/weather-gone',
      '/browse/agents/weather-now',
    ]) {
      const res = await get(path);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
  });

  it('agents in browse: displayName, persona summary and tools', async () => {
    const agent = {
      id: 'weather-buddy',
      name: 'Weather Buddy',
      displayName: 'Sunny',
      version: '0.2.0',
      publisher: { id: 'pub_cat_acme', name: 'Acme Catalog' },
      description: {
        short: 'Chats about the weather',
        long: 'A friendly agent that tells the weather forecast.',
      },
      persona: completeManifest('weather-buddy'),
      tools: ['weather-now', 'rain-alerts'],
      permissions: ['location:read'],
    };
    expect((await send('POST', '/publisher/submit', { type: 'agent', manifest: agent }, ACME)).status).toBe(
      200,
    );
    await approve('weather-buddy');
    const list = await get('/browse/agents?q=forecast');
    expect(list.body.agents).toEqual([
      expect.objectContaining({ id: 'weather-buddy', displayName: 'Sunny', name: 'Weather Buddy' }),
    ]);
    expect((await get('/browse/tools?q=forecast')).body.tools.map((t: { id: string }) => t.id)).toEqual([
      'weather-now',
    ]);
    const detail = await get('/browse/agents/weather-buddy');
    expect(detail.body.agent).toMatchObject({
      id: 'weather-buddy',
      displayName: 'Sunny',
      version: '0.2.0',
      persona: {
        name: 'Ava',
        tagline: 'Calm, quick support for your orders',
        category: 'customer_support',
        voice: { provider: 'espeak-ng', voiceId: 'espeak-en-us-aria' },
        traits: ['patient', 'precise'],
        greeting: 'Hi, this is Ava from Homegoods. How can I help?',
      },
      tools: [
        { id: 'weather-now', name: 'Weather Now', version: '1.0.0', available: true },
        { id: 'rain-alerts', name: 'Rain Alerts', version: '1.0.0', available: true },
      ],
    });
  });

  it('installations: rules, 409 for a second active one, uninstall by installation id (own only), list', async () => {
    const install = (body: unknown, headers = USER, kind = 'tool') =>
      send('POST', `/install/${kind}`, body, headers);
    const first = await install({ toolId: 'weather-now', grantedPermissions: ['math:compute'] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      success: true,
      installation: {
        id: expect.stringMatching(/^inst_/),
        toolId: 'weather-now',
        installedAt: expect.any(String),
        grantedPermissions: ['math:compute'],
        status: 'active',
      },
    });
    const again = await install({ toolId: 'weather-now', grantedPermissions: [] });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
    const concurrent = await Promise.all(
      [1, 2, 3, 4, 5].map(() => install({ toolId: 'rain-alerts' }, { 'x-user-id': 'usr_cat_race' })),
    );
    expect(concurrent.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);

    const notAsked = await install({
      toolId: 'calendar-sync',
      grantedPermissions: ['math:compute', 'admin:all', 'math:compute'],
    });
    expect(notAsked.status).toBe(400);
    expect(notAsked.body.validationErrors).toEqual([
      'grantedPermissions.1: "admin:all" is not a permission calendar-sync asks for (math:compute, history:read)',
      'grantedPermissions.2: "math:compute" is listed twice',
    ]);
    expect((await install({ toolId: 'nope-nope' })).status).toBe(404);
    expect((await install({ toolId: 'weather-pending' })).status).toBe(404);
    expect((await install({ toolId: 'weather-buddy' })).status).toBe(404);
    const gone = await install({ toolId: 'weather-gone' });
    expect([gone.status, gone.body.code]).toEqual([410, 'GONE']);
    expect((await install({ grantedPermissions: [] })).body.validationErrors).toEqual([
      expect.stringMatching(/^toolId: /),
    ]);
    expect(
      (await install({ toolId: 'weather-now', grantedPermissions: 'all', x: 1 })).body.validationErrors,
    ).toEqual(expect.arrayContaining([expect.stringMatching(/^grantedPermissions: /), 'x: unknown field']));
    expect((await send('POST', '/install/tool', { toolId: 'weather-now' }, {})).status).toBe(401);

    const agent = await install(
      { agentId: 'weather-buddy', grantedPermissions: ['location:read'] },
      USER,
      'agent',
    );
    expect(agent.body.installation).toMatchObject({ agentId: 'weather-buddy', status: 'active' });
    expect((await install({ agentId: 'weather-now' }, USER, 'agent')).status).toBe(404);

    const list = await get('/install/list', USER);
    expect(list.body.totalCount).toBe(2);
    expect(list.body.installations).toEqual([
      expect.objectContaining({
        id: agent.body.installation.id,
        itemId: 'weather-buddy',
        itemType: 'agent',
        status: 'active',
      }),
      expect.objectContaining({
        id: first.body.installation.id,
        itemId: 'weather-now',
        itemType: 'tool',
        itemName: 'Weather Now',
        version: '1.0.0',
        installedAt: first.body.installation.installedAt,
        status: 'active',
        grantedPermissions: ['math:compute'],
      }),
    ]);
    expect((await get('/browse/tools/weather-now')).body.tool.activeInstalls).toBe(1);
    expect((await get('/browse/tools?q=catalog&sort=popular')).body.tools[0].id).toMatch(
      /weather-now|rain-alerts/,
    );

    const id = first.body.installation.id;
    expect(
      (await send('DELETE', `/install/tool/${id}`, undefined, { 'x-user-id': 'usr_someone_else' })).status,
    ).toBe(404);
    expect((await send('DELETE', `/install/agent/${id}`, undefined, USER)).status).toBe(404);
    const removed = await send('DELETE', `/install/tool/${id}`, undefined, USER);
    expect(removed.body).toEqual({ success: true, id, uninstalledAt: expect.any(String) });
    expect((await send('DELETE', `/install/tool/${id}`, undefined, USER)).status).toBe(409);
    expect((await get('/browse/tools/weather-now')).body.tool.activeInstalls).toBe(0);
    expect(
      (await get('/install/list', USER)).body.installations.map((i: { itemId: string }) => i.itemId),
    ).toEqual(['weather-buddy']);
    expect(
      (await get('/install/list?status=uninstalled', USER)).body.installations.map(
        (i: { id: string }) => i.id,
      ),
    ).toEqual([id]);
    expect((await get('/install/list?status=gone', USER)).status).toBe(400);
    // reinstalling after uninstalling is a new installation
    expect((await install({ toolId: 'weather-now' })).status).toBe(200);
    const agentUninstall = await send(
      'DELETE',
      `/install/agent/${agent.body.installation.id}`,
      undefined,
      USER,
    );
    expect(agentUninstall.body.success).toBe(true);
    expect((await get('/install/list')).status).toBe(401);
  });
});
