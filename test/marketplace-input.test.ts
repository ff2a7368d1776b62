import { TEST_ADMIN_TOKEN } from './support/env';
import { call, startTestApp, type TestApp } from './support/test-app';

const MKT = '/api/marketplace';

/** Bad input on every marketplace route: a 400 naming the field, and nothing changed. */
describe('marketplace routes refuse bad input', () => {
  let app: TestApp;
  const PUB = { 'x-publisher-id': 'pub_input', 'x-publisher-name': 'Input Co' };
  const USER = { 'x-user-id': 'usr_input', 'x-subscription-tier': 'pro' };
  const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const manifest = {
    id: 'input-tool',
    name: 'Input Tool',
    version: '1.0.0',
    publisher: { id: 'pub_input', name: 'Input Co' },
    description: { short: 'Echo', long: 'Echoes its input.' },
    execution: { runtime: { type: 'http', version: '1' }, endpoint: 'http://127.0.0.1:9/echo' },
    interface: { llmDescription: 'Echoes' },
    permissions: ['echo:use'],
  };
  const snapshot = async () => ({
    items: (await call(app.baseUrl, 'GET', `${MKT}/publisher/items`, { headers: PUB })).body,
    installs: (await call(app.baseUrl, 'GET', `${MKT}/install/list`, { headers: USER })).body,
    usage: (await call(app.baseUrl, 'GET', `${MKT}/usage/summary`, { headers: USER })).body,
    reviews: (await call(app.baseUrl, 'GET', '/api/admin/reviews', { headers: ADMIN })).body,
  });

  beforeAll(async () => {
    app = await startTestApp();
    await call(app.baseUrl, 'POST', `${MKT}/publisher/submit`, {
      headers: PUB,
      body: { type: 'tool', manifest },
    });
    await call(app.baseUrl, 'POST', '/api/admin/marketplace/items/input-tool/review', {
      headers: ADMIN,
      body: { decision: 'approve' },
    });
    await call(app.baseUrl, 'POST', `${MKT}/install/tool`, { headers: USER, body: { toolId: 'input-tool' } });
  });
  afterAll(() => app.close());

  it('answers 400 VALIDATION_FAILED naming the field on every route, and changes nothing', async () => {
    const before = await snapshot();
    const long = 'x'.repeat(200);
    const cases: Array<[string, string, Record<string, string>, unknown, RegExp]> = [
      ['POST', '/publisher/submit', PUB, { type: 'tool', manifest: 'nope' }, /^manifest: /],
      [
        'POST',
        '/publisher/submit',
        PUB,
        { type: 'tool', manifest: { ...manifest, id: 'fresh-id', version: 'x' } },
        /^manifest\.version: /,
      ],
      [
        'PUT',
        '/publisher/input-tool',
        PUB,
        { manifest: { ...manifest, version: '2.0.0' }, force: true },
        /^force: unknown field$/,
      ],
      [
        'PUT',
        '/publisher/input-tool',
        PUB,
        { manifest: { ...manifest, version: '2.0.0', name: 7 } },
        /^manifest\.name: /,
      ],
      ['PUT', `/publisher/${long}`, PUB, { manifest }, /^id: /],
      ['GET', `/publisher/${long}`, PUB, undefined, /^id: /],
      ['GET', '/publisher/input-tool/analytics?period=week', PUB, undefined, /^period: /],
      ['GET', '/publisher/input-tool/analytics?from=2020', PUB, undefined, /^from: unknown field$/],
      ['DELETE', `/publisher/${long}`, PUB, undefined, /^id: /],
      ['POST', `/publisher/${long}/restore`, PUB, undefined, /^id: /],
      ['GET', '/browse/tools?limit=101', {}, undefined, /^limit: /],
      ['GET', '/browse/agents?offset=-1', {}, undefined, /^offset: /],
      ['GET', `/browse/tools/${long}`, {}, undefined, /^id: /],
      ['GET', `/browse/agents/${long}`, {}, undefined, /^id: /],
      [
        'POST',
        '/install/tool',
        USER,
        { toolId: 'input-tool', grantedPermissions: ['echo:use', 5] },
        /^grantedPermissions\.1: /,
      ],
      ['POST', '/install/agent', USER, { toolId: 'input-tool' }, /^(agentId: |toolId: unknown field)/],
      ['DELETE', `/install/tool/${long}`, USER, undefined, /^id: /],
      ['DELETE', `/install/agent/${long}`, USER, undefined, /^id: /],
      ['GET', '/install/list?status=all', USER, undefined, /^status: /],
      ['POST', '/execute/input-tool', USER, { arguments: [] }, /^arguments: /],
      [
        'POST',
        '/execute/input-tool',
        { 'x-user-id': 'usr_input', 'x-subscription-tier': 'platinum' },
        {},
        /^x-subscription-tier: /,
      ],
      ['GET', '/usage/input-tool?period=2026-1', USER, undefined, /^period: /],
      ['GET', '/usage/summary?period=last', USER, undefined, /^period: /],
      ['GET', '/quota/check/input-tool', { 'x-user-id': 'usr_input' }, undefined, /^x-subscription-tier: /],
      [
        'POST',
        '/publisher/submit',
        PUB,
        { type: 'tool', manifest: { ...manifest, name: 'a\u0000b' } },
        /NUL/,
      ],
    ];
    for (const [method, path, headers, body, field] of cases) {
      const res = await call(app.baseUrl, method, MKT + path, { headers, body });
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 400, 'VALIDATION_FAILED']);
      expect([method, path, res.body.validationErrors.some((e: string) => field.test(e))]).toEqual([
        method,
        path,
        true,
      ]);
    }
    const adminCases: Array<[string, string, unknown, RegExp]> = [
      ['POST', '/marketplace/items/input-tool/review', { decision: 'yes' }, /^decision: /],
      ['POST', `/marketplace/items/${long}/review`, { decision: 'approve' }, /^id: /],
      ['PUT', '/publishers/pub_input/verification', { verified: 1 }, /^verified: /],
      ['PUT', '/publishers/pub_input/verification', {}, /^verified: /],
      ['GET', `/marketplace/items/${long}`, undefined, /^id: /],
    ];
    for (const [method, path, body, field] of adminCases) {
      const res = await call(app.baseUrl, method, `/api/admin${path}`, { headers: ADMIN, body });
      expect([method, path, res.status]).toEqual([method, path, 400]);
      expect(res.body.validationErrors.some((e: string) => field.test(e))).toBe(true);
    }
    const malformed = await call(app.baseUrl, 'POST', `${MKT}/publisher/submit`, {
      headers: PUB,
      rawBody: '{"type":',
    });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(await snapshot()).toEqual(before);
  });

  it('needs the gateway identity on publisher and user routes, and none on browse', async () => {
    const publisherRoutes: Array<[string, string]> = [
      ['POST', '/publisher/submit'],
      ['GET', '/publisher/items'],
      ['GET', '/publisher/profile'],
      ['GET', '/publisher/input-tool'],
      ['GET', '/publisher/input-tool/analytics'],
      ['PUT', '/publisher/input-tool'],
      ['DELETE', '/publisher/input-tool'],
      ['POST', '/publisher/input-tool/restore'],
    ];
    const userRoutes: Array<[string, string]> = [
      ['POST', '/install/tool'],
      ['POST', '/install/agent'],
      ['DELETE', '/install/tool/inst_x'],
      ['DELETE', '/install/agent/inst_x'],
      ['GET', '/install/list'],
      ['POST', '/execute/input-tool'],
      ['GET', '/usage/input-tool'],
      ['GET', '/usage/summary'],
      ['GET', '/quota/check/input-tool'],
    ];
    for (const [method, path] of [...publisherRoutes, ...userRoutes]) {
      const res = await call(app.baseUrl, method, MKT + path, { body: method === 'GET' ? undefined : {} });
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 401, 'UNAUTHORIZED']);
    }
    for (const path of ['/browse/tools', '/browse/agents', '/browse/tools/input-tool']) {
      expect([path, (await call(app.baseUrl, 'GET', MKT + path)).status]).toEqual([path, 200]);
    }
    expect((await call(app.baseUrl, 'GET', `${MKT}/publisher/items`, { headers: PUB })).body.totalCount).toBe(
      1,
    );
  });
});
