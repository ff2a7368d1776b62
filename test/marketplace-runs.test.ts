import { executeInstalledTool, installedToolsForUser } from '../src/marketplace';
import { TEST_ADMIN_TOKEN } from './support/env';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { type Receiver, startReceiver } from './support/receiver';
import { call, startTestApp, type TestApp } from './support/test-app';

const MKT = '/api/marketplace';
const PERIOD = new Date().toISOString().slice(0, 7);
const TODAY = new Date().toISOString().slice(0, 10);

/** Running installed tools: metering, exact quotas, usage, quota checks and analytics from the same records. */
describe('marketplace runs, metering and quotas', () => {
  let app: TestApp;
  let mcp: McpTestServer;
  let receiver: Receiver;
  const PUB = { 'x-publisher-id': 'pub_runs', 'x-publisher-name': 'Runs Inc' };
  const user = (id: string, tier = 'free') => ({ 'x-user-id': id, 'x-subscription-tier': tier });
  const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    call(app.baseUrl, method, MKT + path, { headers, body });
  const get = (path: string, headers: Record<string, string>) =>
    call(app.baseUrl, 'GET', MKT + path, { headers });
  const run = (itemId: string, args: unknown, headers: Record<string, string>) =>
    send('POST', `/execute/${itemId}`, { arguments: args }, headers);
  const base = (id: string, extra: object) => ({
    id,
    name: id,
    version: '1.0.0',
    publisher: { id: 'pub_runs', name: 'Runs Inc' },
    description: { short: `${id} tool`, long: `The ${id} tool, for tests.` },
    interface: { llmDescription: `Use ${id}` },
    ...extra,
  });
  const publish = async (type: 'tool' | 'agent', manifest: object) => {
    const res = await send('POST', '/publisher/submit', { type, manifest }, PUB);
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    const id = (manifest as { id: string }).id;
    const decided = await call(app.baseUrl, 'POST', `/api/admin/marketplace/items/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    if (decided.status !== 200) throw new Error(JSON.stringify(decided.body));
  };
  const install = async (userId: string, itemId: string, kind = 'tool') => {
    const res = await send('POST', `/install/${kind}`, { [`${kind}Id`]: itemId }, { 'x-user-id': userId });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.installation.id as string;
  };

  beforeAll(async () => {
    app = await startTestApp();
    mcp = await startMcpTestServer();
    receiver = await startReceiver();
    const mcpRuntime = (toolName: string) => ({
      execution: { runtime: { type: 'mcp', version: '2025-06-18' }, endpoint: mcp.url, toolName },
    });
    await publish(
      'tool',
      base('adder', {
        ...mcpRuntime('add'),
        interface: {
          llmDescription: 'Adds two numbers a and b',
          inputSchema: {
            type: 'object',
            properties: { a: { type: 'number' }, b: { type: 'number' } },
            required: ['a', 'b'],
          },
        },
        pricing: { model: 'per_execution', priceCents: 5 },
        quotas: { free: 15, pro: 40 },
      }),
    );
    await publish('tool', base('flaky', mcpRuntime('fails')));
    await publish(
      'tool',
      base('http-hook', { execution: { runtime: { type: 'http', version: '1' }, endpoint: receiver.url } }),
    );
    await publish('tool', base('docker-only', { execution: { runtime: { type: 'docker', version: '24' } } }));
    const { interface: _i, ...agentBase } = base('run-agent', {});
    await publish('agent', {
      ...agentBase,
      displayName: 'Runner',
      persona: completeManifest('run-agent'),
      tools: ['adder'],
    });
    for (const item of ['adder', 'flaky', 'http-hook', 'docker-only']) await install('usr_runner', item);
    await install('usr_runner', 'run-agent', 'agent');
  });
  afterAll(async () => {
    await app.close();
    await mcp.close();
    await receiver.close();
  });

  it('runs an installed MCP tool and an HTTP tool, meters each run, and reports tool failures as outcomes', async () => {
    const ok = await run('adder', { a: 2, b: 3 }, user('usr_runner'));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      success: true,
      itemId: 'adder',
      version: '1.0.0',
      result: { sum: 5 },
      durationMs: expect.any(Number),
      quota: { period: PERIOD, used: 1, limit: 15, remaining: 14, resetsAt: expect.any(String) },
    });
    expect(mcp.calls.at(-1)).toEqual({ name: 'add', arguments: { a: 2, b: 3 } });

    const http = await run('http-hook', { orderId: 'A-1' }, user('usr_runner'));
    expect(http.body).toMatchObject({ success: true, result: 'ok' });
    const request = receiver.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', rawBody: '{"orderId":"A-1"}' });
    expect(request.headers['x-marketplace-item']).toBe('http-hook@1.0.0');
    receiver.respond([502]);
    const failedHttp = await run('http-hook', {}, user('usr_runner'));
    expect(failedHttp.body).toMatchObject({
      success: false,
      errorCode: 'HTTP_ERROR',
      error: 'HTTP 502: failure 502',
    });

    const failed = await run('flaky', {}, user('usr_runner'));
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({
      success: false,
      errorCode: 'TOOL_ERROR',
      error: expect.stringContaining('inventory backend unavailable'),
      quota: { used: 1, limit: 100 },
    });
  });

  it('refuses runs that cannot happen, with the right status, and counts none of them', async () => {
    const before = (await get('/usage/adder', user('usr_runner'))).body.totals;
    const cases: Array<[string, unknown, Record<string, string>, number, string]> = [
      ['adder', { a: 1 }, user('usr_stranger'), 403, 'FORBIDDEN'],
      ['nope-nope', {}, user('usr_runner'), 404, 'NOT_FOUND'],
      ['run-agent', {}, user('usr_runner'), 400, 'VALIDATION_FAILED'],
      ['docker-only', {}, user('usr_runner'), 400, 'VALIDATION_FAILED'],
      ['adder', { a: '1' }, user('usr_runner'), 400, 'VALIDATION_FAILED'],
      ['adder', { a: 1, b: 2 }, user('usr_runner', 'gold'), 400, 'VALIDATION_FAILED'],
      ['adder', { a: 1, b: 2 }, { 'x-user-id': 'usr_runner' }, 400, 'VALIDATION_FAILED'],
      ['adder', { a: 1, b: 2 }, { 'x-subscription-tier': 'pro' }, 401, 'UNAUTHORIZED'],
    ];
    for (const [itemId, args, headers, status, code] of cases) {
      const res = await run(itemId, args, headers);
      expect([itemId, JSON.stringify(headers), res.status, res.body.code]).toEqual([
        itemId,
        JSON.stringify(headers),
        status,
        code,
      ]);
    }
    const badArgs = await run('adder', { a: '1' }, user('usr_runner'));
    expect(badArgs.body.validationErrors).toEqual([
      'arguments.b: is required',
      'arguments.a: expected number',
    ]);
    const badTier = await run('adder', { a: 1, b: 2 }, user('usr_runner', 'gold'));
    expect(badTier.body.validationErrors).toEqual([expect.stringMatching(/^x-subscription-tier: /)]);
    const unknownField = await send(
      'POST',
      '/execute/adder',
      { arguments: {}, extra: 1 },
      user('usr_runner'),
    );
    expect(unknownField.body.validationErrors).toEqual(['extra: unknown field']);
    expect((await get('/usage/adder', user('usr_runner'))).body.totals).toEqual(before);
  });

  it('enforces the monthly quota exactly under concurrency: 50 parallel runs against 10 remaining, exactly 10 run', async () => {
    await install('usr_burst', 'adder');
    for (let i = 0; i < 5; i++)
      expect((await run('adder', { a: i, b: 1 }, user('usr_burst'))).status).toBe(200);
    const callsBefore = mcp.calls.filter((c) => c.name === 'add').length;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => run('adder', { a: i, b: 0 }, user('usr_burst'))),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect(mcp.calls.filter((c) => c.name === 'add').length - callsBefore).toBe(10);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.body).toEqual({
      success: false,
      code: 'QUOTA_EXCEEDED',
      error: expect.stringMatching(
        /^Monthly quota of 15 executions of adder for the free tier is used up; it resets at /,
      ),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const used = results.filter((r) => r.status === 200).map((r) => r.body.quota.used);
    expect(used.sort((a, b) => a - b)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);

    // the same records give usage, summary and the quota check
    const usage = await get(`/usage/adder?period=${PERIOD}`, user('usr_burst'));
    expect(usage.body).toEqual({
      itemId: 'adder',
      period: PERIOD,
      userId: 'usr_burst',
      tier: 'free',
      totals: { executions: 15, executionTimeMs: expect.any(Number), quotaUsed: 15, quotaLimit: 15 },
      breakdown: [{ date: TODAY, executions: 15, executionTimeMs: usage.body.totals.executionTimeMs }],
    });
    const check = await get('/quota/check/adder', user('usr_burst'));
    expect(check.body).toEqual({
      allowed: false,
      reason: expect.stringMatching(/^Monthly quota of 15 executions for the free tier is used up/),
      quotaUsed: 15,
      quotaLimit: 15,
      remainingQuota: 0,
      period: PERIOD,
      resetsAt: expect.any(String),
    });
    // a higher tier has a higher limit over the same month's runs
    const pro = await get('/quota/check/adder', user('usr_burst', 'pro'));
    expect(pro.body).toMatchObject({
      allowed: true,
      reason: null,
      quotaUsed: 15,
      quotaLimit: 40,
      remainingQuota: 25,
    });
    expect((await run('adder', { a: 1, b: 1 }, user('usr_burst', 'pro'))).body.quota).toMatchObject({
      used: 16,
      limit: 40,
    });
    const enterprise = await get('/quota/check/flaky', user('usr_burst', 'enterprise'));
    expect(enterprise.body).toMatchObject({
      allowed: false,
      reason: 'Item flaky is not installed for user usr_burst',
      quotaLimit: 1_000_000,
    });
  });

  it('usage of another month is empty; the summary adds up every item; bad input is a 400', async () => {
    const past = await get('/usage/adder?period=2020-01', user('usr_runner'));
    expect(past.body).toMatchObject({
      period: '2020-01',
      totals: { executions: 0, executionTimeMs: 0, quotaUsed: 0, quotaLimit: 15 },
      breakdown: [],
    });
    const summary = await get('/usage/summary', user('usr_runner', 'pro'));
    expect(summary.status).toBe(200);
    const byItem = Object.fromEntries(
      summary.body.items.map((i: { itemId: string; totals: { executions: number } }) => [i.itemId, i.totals]),
    );
    expect(byItem).toEqual({
      adder: { executions: 1, executionTimeMs: expect.any(Number), quotaUsed: 1, quotaLimit: 40 },
      flaky: { executions: 1, executionTimeMs: expect.any(Number), quotaUsed: 1, quotaLimit: 10000 },
      'http-hook': { executions: 2, executionTimeMs: expect.any(Number), quotaUsed: 2, quotaLimit: 10000 },
    });
    expect(summary.body).toMatchObject({ period: PERIOD, userId: 'usr_runner', tier: 'pro' });
    expect(summary.body.aggregate).toEqual({
      totalExecutions: 4,
      totalTimeMs: Object.values(byItem).reduce((n: number, t: any) => n + t.executionTimeMs, 0),
      itemCount: 3,
    });
    expect((await get('/usage/summary?period=2020-13', user('usr_runner'))).body.validationErrors).toEqual([
      'period: must be a month, YYYY-MM',
    ]);
    expect((await get('/usage/adder?x=1', user('usr_runner'))).status).toBe(400);
    expect((await get('/usage/nope-nope', user('usr_runner'))).status).toBe(404);
    expect((await get('/quota/check/nope-nope', user('usr_runner'))).status).toBe(404);
    expect((await get('/usage/summary', { 'x-user-id': 'usr_runner' })).status).toBe(400);
    expect((await get('/quota/check/adder', { 'x-subscription-tier': 'pro' })).status).toBe(401);
  });

  it('publisher analytics equal the runs made: executions, errors, users, time and revenue', async () => {
    const analytics = await get('/publisher/adder/analytics', PUB);
    expect(analytics.status).toBe(200);
    // adder ran 1 (usr_runner) + 5 + 10 + 1 (usr_burst) times, all successful, at 5 cents
    expect(analytics.body).toEqual({
      itemId: 'adder',
      period: '30d',
      from: expect.any(String),
      to: expect.any(String),
      metrics: {
        totalInstalls: 2,
        activeInstalls: 2,
        totalExecutions: 17,
        successRate: 1,
        avgExecutionTimeMs: expect.any(Number),
        errorCount: 0,
        uniqueUsers: 2,
      },
      revenue: { totalCents: 85, periodCents: 85, currency: 'USD' },
      topErrors: [],
    });
    const runner = (await get('/usage/adder', user('usr_runner'))).body.totals.executions;
    const burst = (await get('/usage/adder', user('usr_burst'))).body.totals.executions;
    expect(runner + burst).toBe(analytics.body.metrics.totalExecutions);

    const hook = (await get('/publisher/http-hook/analytics?period=7d', PUB)).body;
    expect(hook.metrics).toMatchObject({
      totalExecutions: 2,
      successRate: 0.5,
      errorCount: 1,
      uniqueUsers: 1,
    });
    expect(hook.revenue).toEqual({ totalCents: 0, periodCents: 0, currency: 'USD' });
    expect(hook.topErrors).toEqual([{ code: 'HTTP_ERROR', count: 1, lastOccurred: expect.any(String) }]);
    const flaky = (await get('/publisher/flaky/analytics?period=90d', PUB)).body;
    expect(flaky.topErrors).toEqual([{ code: 'TOOL_ERROR', count: 1, lastOccurred: expect.any(String) }]);
  });

  it('for voice sessions: installedToolsForUser lists installed executable tools; executeInstalledTool runs one through the same path', async () => {
    const tools = await installedToolsForUser(app.ctx.orm.em.fork(), 'usr_runner');
    expect(tools.map((t) => t.itemId)).toEqual(['adder', 'flaky', 'http-hook']);
    expect(tools[0]).toEqual({
      itemId: 'adder',
      installationId: expect.stringMatching(/^inst_/),
      name: 'adder',
      description: 'Adds two numbers a and b',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      version: '1.0.0',
    });
    expect(await installedToolsForUser(app.ctx.orm.em.fork(), 'usr_nobody')).toEqual([]);

    const ran = await executeInstalledTool(app.ctx, {
      userId: 'usr_runner',
      tier: 'pro',
      itemId: 'adder',
      arguments: { a: 20, b: 22 },
    });
    expect(ran).toMatchObject({
      status: 'ran',
      success: true,
      result: { sum: 42 },
      quota: { used: 2, limit: 40 },
    });
    expect(
      await executeInstalledTool(app.ctx, {
        userId: 'usr_runner',
        tier: 'pro',
        itemId: 'adder',
        arguments: {},
      }),
    ).toMatchObject({ status: 'refused', reason: 'invalid_arguments' });
    expect(
      await executeInstalledTool(app.ctx, {
        userId: 'usr_x',
        tier: 'free',
        itemId: 'adder',
        arguments: { a: 1, b: 1 },
      }),
    ).toMatchObject({ status: 'refused', reason: 'not_installed' });
    expect((await get('/usage/adder', user('usr_runner'))).body.totals.executions).toBe(2);
  });
});
