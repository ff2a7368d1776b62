import knexFactory from 'knex';
import type { PostgresApiCallRecorder } from '../src/analytics/recorder';
import { DAY_MS, utcDay } from '../src/analytics/windows';
import { TEST_ADMIN_TOKEN } from './support/env';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { eventually, type Receiver, startReceiver } from './support/receiver';
import {
  type ApiResponse,
  call,
  type Developer,
  newDeveloper,
  startTestApp,
  type TestApp,
} from './support/test-app';

/** Platform calls made through `platform()`, by environment and status: what analytics must count. */
type Tally = Record<'live' | 'test', { calls: number; errors: number }>;

describe('console analytics', () => {
  let app: TestApp;
  let receiver: Receiver;
  let mcp: McpTestServer;
  let dev: Developer;
  const tally: Tally = { live: { calls: 0, errors: 0 }, test: { calls: 0, errors: 0 } };

  /** A platform call by `dev`'s live or test key, tallied. */
  async function platform(env: 'live' | 'test', method: string, path: string, body?: unknown) {
    const res = await call(app.baseUrl, method, `/api/v2/developers${path}`, {
      token: env === 'live' ? dev.liveKey : dev.testKey,
      body,
    });
    tally[env].calls += 1;
    if (res.status >= 400) tally[env].errors += 1;
    return res;
  }
  const live = (method: string, path: string, body?: unknown) => platform('live', method, path, body);

  const analytics = (token: string, path: string) =>
    call(app.baseUrl, 'GET', `/api/v1/developers/analytics${path}`, { token });
  const sql = <T = Record<string, unknown>>(text: string, bindings: unknown[] = []) =>
    app.ctx.orm.em.getConnection().execute<T[]>(text, bindings);
  const recorder = () => app.ctx.apiCalls as PostgresApiCallRecorder;

  async function publishedPersona(owner: Developer, slug: string): Promise<string> {
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: owner.token,
      body: { manifest: completeManifest(slug) },
    });
    expect(created.status).toBe(201);
    const id = created.body.persona.id as string;
    await call(app.baseUrl, 'POST', `/api/v1/developers/personas/${id}/submit`, { token: owner.token });
    const decided = await call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(decided.body.persona.status).toBe('published');
    return id;
  }

  // dev's known traffic, made once in beforeAll and asserted by the tests below
  let personaOne: string;
  let personaTwo: string;
  let sessionDurations: number[];
  let notFound: ApiResponse;
  let invalid: ApiResponse;
  let webhookId: string;

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
    receiver = await startReceiver();
    receiver.respond([], 500);
    mcp = await startMcpTestServer();
    dev = await newDeveloper(app, 'analytics');
    personaOne = await publishedPersona(dev, 'analytics-one');
    personaTwo = await publishedPersona(dev, 'analytics-two');

    // API calls: successes, a 404 twice, a 400
    for (let i = 0; i < 3; i++) expect((await live('GET', '/secrets')).status).toBe(200);
    expect((await live('GET', '/tools/tool_doesnotexist')).status).toBe(404);
    notFound = await live('GET', '/tools/tool_doesnotexist2');
    expect(notFound.status).toBe(404);
    invalid = await live('POST', '/tools', { name: 'x', type: 'webhook', config: {} });
    expect(invalid.status).toBe(400);
    // a failing tool run, whose tool.failed event is delivered to a failing webhook (5 attempts)
    const webhook = await live('POST', '/webhooks', {
      name: 'failures',
      url: receiver.url,
      events: ['tool.failed'],
    });
    expect(webhook.status).toBe(201);
    webhookId = webhook.body.data.id;
    const tool = await live('POST', '/tools', {
      name: 'broken_tool',
      type: 'webhook',
      config: { url: receiver.url, method: 'POST' },
    });
    expect(tool.status).toBe(201);
    const run = await live('POST', `/tools/${tool.body.data.id}/test`, { arguments: {} });
    expect(run.body.data.success).toBe(false);
    // a failing workflow execution
    const server = await live('POST', '/mcp-servers', {
      name: 'inventory',
      transport: 'http',
      endpoint: mcp.url,
    });
    expect(server.status).toBe(201);
    const wf = await live('POST', '/workflows', {
      name: 'Stock check',
      trigger: { type: 'manual', config: {} },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'stock', type: 'mcp_call', config: { serverId: server.body.data.id, toolName: 'fails' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { sourceId: 'start', targetId: 'stock' },
        { sourceId: 'stock', targetId: 'end' },
      ],
    });
    expect(wf.status).toBe(201);
    const exec = await live('POST', `/workflows/${wf.body.data.id}/execute`, {});
    expect(exec.body.data.status).toBe('failed');
    // sessions: persona one by two users (both ended), persona two by one of them (still active)
    const started: string[] = [];
    for (const [personaId, userId] of [
      [personaOne, 'caller-1'],
      [personaOne, 'caller-2'],
      [personaTwo, 'caller-1'],
    ]) {
      const res = await live('POST', '/sessions', { personaId, userId });
      expect(res.status).toBe(201);
      started.push(res.body.data.id);
    }
    sessionDurations = [];
    for (const id of started.slice(0, 2)) {
      const ended = await live('POST', `/sessions/${id}/end`);
      expect(ended.body.data.status).toBe('ended');
      sessionDurations.push(Date.parse(ended.body.data.endedAt) - Date.parse(ended.body.data.startedAt));
    }
    // sandbox traffic: counted under environment=test only
    expect((await platform('test', 'GET', '/secrets')).status).toBe(200);
    expect((await platform('test', 'GET', '/webhooks/wh_nope')).status).toBe(404);
    const sandbox = await platform('test', 'POST', '/sessions', {
      personaId: personaTwo,
      userId: 'sandbox-user',
    });
    expect(sandbox.status).toBe(201);
    // a wrong key is nobody's call
    await call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: 'pk_live_notakey' });

    await eventually(async () => {
      const rows = await sql<{ status: string }>(`select status from deliveries where webhook_id = ?`, [
        webhookId,
      ]);
      return rows.length === 1 && rows[0].status === 'failed';
    }, 30_000);
    await recorder().flush();
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    await mcp?.close();
  });

  it('counts every platform call per route template, status and error code (not failed authentications)', async () => {
    const rows = await sql<{
      environment: string;
      method: string;
      route: string;
      status: number;
      error_code: string;
      calls: string;
    }>(
      `select environment, method, route, status, error_code, sum(calls) as calls from api_call_minutes
       where account_id = ? group by 1, 2, 3, 4, 5 order by 1, 3, 2, 4`,
      [dev.publisherId],
    );
    const live404 = rows.find((r) => r.route === '/api/v2/developers/tools/:id' && r.status === 404);
    expect(live404).toMatchObject({
      environment: 'live',
      method: 'GET',
      error_code: 'NOT_FOUND',
      calls: '2',
    });
    expect(rows.find((r) => r.route === '/api/v2/developers/tools' && r.status === 400)).toMatchObject({
      method: 'POST',
      error_code: 'VALIDATION_FAILED',
      calls: '1',
    });
    expect(
      rows.find((r) => r.route === '/api/v2/developers/secrets' && r.environment === 'live'),
    ).toMatchObject({
      status: 200,
      error_code: '',
      calls: '3',
    });
    const total = (env: string) =>
      rows.filter((r) => r.environment === env).reduce((n, r) => n + Number(r.calls), 0);
    expect(total('live')).toBe(tally.live.calls);
    expect(total('test')).toBe(tally.test.calls);
    expect(rows.every((r) => !/tool_|wf_|sess_|exec_/.test(r.route))).toBe(true);
    // the daily rollup holds the same calls
    const [days] = await sql<{ calls: string }>(
      `select sum(calls) as calls from api_call_days where account_id = ?`,
      [dev.publisherId],
    );
    expect(Number(days.calls)).toBe(tally.live.calls + tally.test.calls);
  });

  it('overview: every figure from the known traffic, changes against an empty previous period', async () => {
    const res = await analytics(dev.token, '/overview');
    expect(res.status).toBe(200);
    const [latency] = await sql<{ avg: number }>(
      `select sum(latency_ms_sum) / sum(calls) as avg from api_call_minutes where account_id = ? and environment = 'live'`,
      [dev.publisherId],
    );
    expect(res.body.period).toBe('week');
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(7 * DAY_MS);
    expect(res.body.overview).toEqual({
      totalApiCalls: tally.live.calls,
      totalApiCallsChange: 1,
      uniqueUsers: 2,
      uniqueUsersChange: 1,
      activePersonas: 2,
      activePersonasChange: 1,
      errorRate: tally.live.errors / tally.live.calls,
      errorRateChange: 1,
      avgResponseTime: expect.any(Number),
      avgResponseTimeChange: 1,
    });
    expect(tally.live.errors).toBe(3);
    expect(res.body.overview.avgResponseTime).toBeGreaterThan(0);
    expect(res.body.overview.avgResponseTime).toBeCloseTo(Number(latency.avg), 6);

    const sandbox = await analytics(dev.token, '/overview?environment=test&period=day');
    expect(sandbox.body.overview).toMatchObject({
      totalApiCalls: tally.test.calls,
      errorRate: 1 / 3,
      uniqueUsers: 1,
      activePersonas: 1,
    });
    const all = await analytics(dev.token, '/overview?environment=all&period=year');
    expect(all.body.overview).toMatchObject({
      totalApiCalls: tally.live.calls + tally.test.calls,
      errorRate: (tally.live.errors + tally.test.errors) / (tally.live.calls + tally.test.calls),
      uniqueUsers: 3,
      activePersonas: 2,
    });
  });

  it('usage: one entry per day of the last 30, days without traffic included', async () => {
    const res = await analytics(dev.token, '/usage');
    expect(res.status).toBe(200);
    const today = utcDay(Date.now());
    expect(res.body.usage).toHaveLength(30);
    expect(res.body.to).toBe(today);
    expect(res.body.usage.at(-1)).toEqual({
      date: today,
      apiCalls: tally.live.calls,
      uniqueUsers: 2,
      errors: 3,
    });
    expect(
      res.body.usage
        .slice(0, -1)
        .every(
          (d: { apiCalls: number; uniqueUsers: number; errors: number }) =>
            d.apiCalls === 0 && d.uniqueUsers === 0 && d.errors === 0,
        ),
    ).toBe(true);
    expect(res.body.usage[0].date).toBe(utcDay(Date.now() - 29 * DAY_MS));

    const range = await analytics(
      dev.token,
      `/usage?from=${utcDay(Date.now() - 2 * DAY_MS)}&to=${today}&environment=all`,
    );
    expect(range.body.usage).toEqual([
      { date: utcDay(Date.now() - 2 * DAY_MS), apiCalls: 0, uniqueUsers: 0, errors: 0 },
      { date: utcDay(Date.now() - DAY_MS), apiCalls: 0, uniqueUsers: 0, errors: 0 },
      {
        date: today,
        apiCalls: tally.live.calls + tally.test.calls,
        uniqueUsers: 3,
        errors: tally.live.errors + tally.test.errors,
      },
    ]);
  });

  it('personas: sessions, mean duration of the ended ones and distinct users per persona', async () => {
    const res = await analytics(dev.token, '/personas');
    expect(res.status).toBe(200);
    expect(res.body.personas).toEqual([
      {
        personaId: personaOne,
        personaName: 'Ava',
        totalCalls: 2,
        avgSessionDuration: (sessionDurations[0] + sessionDurations[1]) / 2,
        uniqueUsers: 2,
        analyzedCalls: 0,
        successRate: null,
      },
      {
        personaId: personaTwo,
        personaName: 'Ava',
        totalCalls: 1,
        avgSessionDuration: 0,
        uniqueUsers: 1,
        analyzedCalls: 0,
        successRate: null,
      },
    ]);
    const sandbox = await analytics(dev.token, '/personas?environment=test');
    expect(sandbox.body.personas).toEqual([
      {
        personaId: personaTwo,
        personaName: 'Ava',
        totalCalls: 1,
        avgSessionDuration: 0,
        uniqueUsers: 1,
        analyzedCalls: 0,
        successRate: null,
      },
    ]);
  });

  it('errors: API error codes and runtime failures, most frequent first, with the latest message', async () => {
    const res = await analytics(dev.token, '/errors');
    expect(res.status).toBe(200);
    const errors = res.body.errors as {
      code: string;
      message: string;
      count: number;
      lastOccurred: string;
    }[];
    expect(errors[0]).toMatchObject({ code: 'NOT_FOUND', count: 2, message: notFound.body.error });
    expect(errors.map((e) => e.code).sort()).toEqual([
      'DELIVERY_FAILED',
      'NOT_FOUND',
      'TOOL_FAILED',
      'VALIDATION_FAILED',
      'WORKFLOW_FAILED',
    ]);
    const byCode = Object.fromEntries(errors.map((e) => [e.code, e]));
    expect(byCode.VALIDATION_FAILED).toMatchObject({ count: 1, message: invalid.body.error });
    expect(byCode.TOOL_FAILED).toMatchObject({ count: 1, message: 'broken_tool: HTTP 500: failure 500' });
    expect(byCode.WORKFLOW_FAILED.count).toBe(1);
    expect(byCode.WORKFLOW_FAILED.message).toMatch(/inventory backend unavailable/);
    expect(byCode.DELIVERY_FAILED).toMatchObject({ count: 1, message: 'Receiver answered 500' });
    // ties (count 1) by latest occurrence
    const ones = errors.slice(1).map((e) => Date.parse(e.lastOccurred));
    expect(ones).toEqual([...ones].sort((a, b) => b - a));
    const [delivery] = await sql<{ last_attempt_at: string }>(
      `select last_attempt_at from deliveries where webhook_id = ?`,
      [webhookId],
    );
    expect(byCode.DELIVERY_FAILED.lastOccurred).toBe(new Date(delivery.last_attempt_at).toISOString());

    const sandbox = await analytics(dev.token, '/errors?environment=test');
    expect(sandbox.body.errors).toEqual([
      { code: 'NOT_FOUND', count: 1, message: expect.any(String), lastOccurred: expect.any(String) },
    ]);
  });

  it('periods and their changes, from calls recorded at known times and latencies', async () => {
    const other = await newDeveloper(app, 'analytics-periods');
    const now = Date.now();
    const at = (ms: number, latencyMs: number, status = 200, errorCode?: string, errorMessage?: string) =>
      app.ctx.apiCalls.record({
        accountId: other.publisherId,
        environment: 'live',
        method: 'GET',
        route: '/api/v2/developers/tools',
        status,
        errorCode,
        errorMessage,
        latencyMs,
        at: now - ms,
      });
    const MIN = 60_000;
    at(MIN, 10);
    at(MIN, 20);
    at(MIN, 30);
    at(MIN, 40, 500, 'INTERNAL', 'boom');
    at(3 * DAY_MS, 50);
    at(3 * DAY_MS, 50, 404, 'NOT_FOUND', 'Tool not found');
    at(8 * DAY_MS, 10);
    at(8 * DAY_MS, 10);
    at(40 * DAY_MS, 100);
    at(400 * DAY_MS, 100);
    await app.ctx.apiCalls.flush();

    const overview = async (period: string) =>
      (await analytics(other.token, `/overview?period=${period}`)).body.overview;
    const day = await overview('day');
    expect(day).toMatchObject({
      totalApiCalls: 4,
      totalApiCallsChange: 1,
      errorRate: 0.25,
      errorRateChange: 1,
    });
    expect(day.avgResponseTime).toBeCloseTo(25, 9);
    expect(day.avgResponseTimeChange).toBe(1);
    const week = await overview('week');
    expect(week).toMatchObject({
      totalApiCalls: 6,
      totalApiCallsChange: 2,
      errorRateChange: 1,
      uniqueUsers: 0,
    });
    expect(week.errorRate).toBeCloseTo(1 / 3, 12);
    expect(week.avgResponseTime).toBeCloseTo(200 / 6, 9);
    expect(week.avgResponseTimeChange).toBeCloseTo((200 / 6 - 10) / 10, 9);
    const month = await overview('month');
    expect(month).toMatchObject({
      totalApiCalls: 8,
      totalApiCallsChange: 7,
      errorRate: 0.25,
      errorRateChange: 1,
    });
    expect(month.avgResponseTime).toBeCloseTo(27.5, 9);
    expect(month.avgResponseTimeChange).toBeCloseTo(-0.725, 9);
    const year = await overview('year');
    expect(year).toMatchObject({ totalApiCalls: 9, totalApiCallsChange: 8 });
    expect(year.errorRate).toBeCloseTo(2 / 9, 12);
    expect(year.avgResponseTime).toBeCloseTo(320 / 9, 9);
    expect(year.avgResponseTimeChange).toBeCloseTo((320 / 9 - 100) / 100, 9);

    // a falling figure: 2 calls this period against 4 in the previous one → -0.5
    const third = await newDeveloper(app, 'analytics-falling');
    for (const ms of [DAY_MS + MIN, DAY_MS + MIN, DAY_MS + 2 * MIN, DAY_MS + 3 * MIN, MIN, 2 * MIN]) {
      app.ctx.apiCalls.record({
        accountId: third.publisherId,
        environment: 'live',
        method: 'GET',
        route: '/api/v2/developers/secrets',
        status: 200,
        latencyMs: 5,
        at: now - ms,
      });
    }
    await app.ctx.apiCalls.flush();
    expect((await analytics(third.token, '/overview?period=day')).body.overview).toMatchObject({
      totalApiCalls: 2,
      totalApiCallsChange: -0.5,
      avgResponseTime: 5,
      avgResponseTimeChange: 0,
      errorRate: 0,
      errorRateChange: 0,
    });

    const errors = await analytics(other.token, '/errors?period=week');
    expect(errors.body.errors).toEqual([
      { code: 'INTERNAL', message: 'boom', count: 1, lastOccurred: new Date(now - MIN).toISOString() },
      {
        code: 'NOT_FOUND',
        message: 'Tool not found',
        count: 1,
        lastOccurred: new Date(now - 3 * DAY_MS).toISOString(),
      },
    ]);
    expect(
      (await analytics(other.token, '/errors?period=day')).body.errors.map((e: { code: string }) => e.code),
    ).toEqual(['INTERNAL']);
    const usage = await analytics(other.token, `/usage?from=${utcDay(now - 8 * DAY_MS)}&to=${utcDay(now)}`);
    expect(usage.body.usage).toHaveLength(9);
    const dayOf = (ms: number) => usage.body.usage.find((d: { date: string }) => d.date === utcDay(now - ms));
    expect(usage.body.usage[0]).toEqual({
      date: utcDay(now - 8 * DAY_MS),
      apiCalls: 2,
      uniqueUsers: 0,
      errors: 0,
    });
    expect(dayOf(3 * DAY_MS)).toEqual({
      date: utcDay(now - 3 * DAY_MS),
      apiCalls: 2,
      uniqueUsers: 0,
      errors: 1,
    });
    expect(dayOf(MIN)).toEqual({ date: utcDay(now - MIN), apiCalls: 4, uniqueUsers: 0, errors: 1 });
    expect(usage.body.usage.reduce((n: number, d: { apiCalls: number }) => n + d.apiCalls, 0)).toBe(8);
  });

  it('sessions moved to an earlier period move their users and personas with them', async () => {
    const owner = await newDeveloper(app, 'analytics-sessions');
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: owner.token,
      body: { manifest: completeManifest('analytics-moved') },
    });
    const personaId = persona.body.persona.id as string;
    const ids: string[] = [];
    for (const userId of ['a', 'b', 'c']) {
      const res = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
        token: owner.testKey,
        body: { personaId, userId },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    // user c's session happened 8 days ago (the rollup follows the row through its trigger)
    await sql(`update sessions set started_at = started_at - interval '8 days' where id = ?`, [ids[2]]);
    const week = await analytics(owner.token, '/overview?environment=test');
    expect(week.body.overview).toMatchObject({
      uniqueUsers: 2,
      uniqueUsersChange: 1,
      activePersonas: 1,
      activePersonasChange: 0,
    });
    // user b's session ended, then moved 8 days back as a whole
    const ended = await call(app.baseUrl, 'POST', `/api/v2/developers/sessions/${ids[1]}/end`, {
      token: owner.testKey,
    });
    const duration = Date.parse(ended.body.data.endedAt) - Date.parse(ended.body.data.startedAt);
    await sql(
      `update sessions set started_at = started_at - interval '8 days', ended_at = ended_at - interval '8 days' where id = ?`,
      [ids[1]],
    );
    expect((await analytics(owner.token, '/overview?environment=test')).body.overview).toMatchObject({
      uniqueUsers: 1,
      uniqueUsersChange: -0.5,
    });
    const usage = await analytics(
      owner.token,
      `/usage?environment=test&from=${utcDay(Date.now() - 8 * DAY_MS)}&to=${utcDay(Date.now() - 8 * DAY_MS)}`,
    );
    expect(usage.body.usage).toEqual([
      { date: utcDay(Date.now() - 8 * DAY_MS), apiCalls: 0, uniqueUsers: 2, errors: 0 },
    ]);
    // deleting a session takes it out
    await sql(`delete from sessions where id = ?`, [ids[0]]);
    expect((await analytics(owner.token, '/personas?environment=test')).body.personas).toEqual([]);
    expect((await analytics(owner.token, '/personas?environment=test&period=month')).body.personas).toEqual([
      {
        personaId,
        personaName: 'Ava',
        totalCalls: 2,
        avgSessionDuration: duration,
        uniqueUsers: 2,
        analyzedCalls: 0,
        successRate: null,
      },
    ]);
    // a session in the partial first day of the week (read from the rows, not the rollups)
    const { from } = (await analytics(owner.token, '/overview?environment=test')).body;
    const late = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: owner.testKey,
      body: { personaId, userId: 'd' },
    });
    await sql(`update sessions set started_at = ? where id = ?`, [
      new Date(Date.parse(from) + 2 * 60_000),
      late.body.data.id,
    ]);
    expect((await analytics(owner.token, '/overview?environment=test')).body.overview).toMatchObject({
      uniqueUsers: 1,
      uniqueUsersChange: -0.5,
      activePersonas: 1,
    });
  });

  it('an empty account answers zeros, a full calendar and empty lists', async () => {
    const empty = await newDeveloper(app, 'analytics-empty');
    for (const period of ['day', 'week', 'month', 'year']) {
      const res = await analytics(empty.token, `/overview?period=${period}&environment=all`);
      expect(res.body.overview).toEqual({
        totalApiCalls: 0,
        totalApiCallsChange: 0,
        uniqueUsers: 0,
        uniqueUsersChange: 0,
        activePersonas: 0,
        activePersonasChange: 0,
        errorRate: 0,
        errorRateChange: 0,
        avgResponseTime: 0,
        avgResponseTimeChange: 0,
      });
    }
    const usage = await analytics(empty.token, '/usage');
    expect(usage.body.usage).toHaveLength(30);
    expect(usage.body.usage.every((d: { apiCalls: number }) => d.apiCalls === 0)).toBe(true);
    expect((await analytics(empty.token, '/personas')).body.personas).toEqual([]);
    expect((await analytics(empty.token, '/errors')).body.errors).toEqual([]);
  });

  it('bad queries are refused with a 400 naming the field; no credentials is a 401', async () => {
    const cases: [string, string][] = [
      ['/overview?period=quarter', 'period'],
      ['/overview?environment=prod', 'environment'],
      ['/overview?periods=week', 'periods'],
      ['/personas?period=', 'period'],
      ['/errors?period=hour', 'period'],
      ['/usage?from=2026-13-01', 'from'],
      ['/usage?to=yesterday', 'to'],
      ['/usage?from=2026-03-02&to=2026-03-01', 'from'],
      ['/usage?from=2024-01-01&to=2026-01-01', 'from'],
    ];
    for (const [path, field] of cases) {
      const res = await analytics(dev.token, path);
      expect([path, res.status, res.body.code]).toEqual([path, 400, 'VALIDATION_FAILED']);
      expect(res.body.validationErrors[0]).toMatch(new RegExp(`^${field}: `));
    }
    expect((await call(app.baseUrl, 'GET', '/api/v1/developers/analytics/overview')).status).toBe(401);
  });
});

describe('console analytics recording', () => {
  it('flushes on its own every interval, and the rest at close', async () => {
    const app = await startTestApp({ RATE_LIMITS: 'off', ANALYTICS_FLUSH_INTERVAL_MS: '100' });
    const dev = await newDeveloper(app, 'analytics-timer');
    const count = async () => {
      const [row] = await app.ctx.orm.em
        .getConnection()
        .execute(`select coalesce(sum(calls), 0)::int as n from api_call_minutes where account_id = ?`, [
          dev.publisherId,
        ]);
      return row.n as number;
    };
    try {
      await call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.liveKey });
      await eventually(async () => (await count()) === 1, 5_000);
    } finally {
      await app.close();
    }

    const slow = await startTestApp({ RATE_LIMITS: 'off', ANALYTICS_FLUSH_INTERVAL_MS: '60000' });
    await call(slow.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.liveKey });
    await call(slow.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.liveKey });
    await slow.close(); // no flush yet: close writes them
    const check = await startTestApp();
    try {
      const [row] = await check.ctx.orm.em
        .getConnection()
        .execute(`select coalesce(sum(calls), 0)::int as n from api_call_minutes where account_id = ?`, [
          dev.publisherId,
        ]);
      expect(row.n).toBe(3);
    } finally {
      await check.close();
    }
  });

  it('records nothing when turned off', async () => {
    const app = await startTestApp({ RATE_LIMITS: 'off', ANALYTICS_RECORDING: 'off' });
    try {
      const dev = await newDeveloper(app, 'analytics-off');
      expect(
        (await call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.liveKey })).status,
      ).toBe(200);
      await app.ctx.apiCalls.flush();
      const rows = await app.ctx.orm.em
        .getConnection()
        .execute(`select 1 from api_call_minutes where account_id = ?`, [dev.publisherId]);
      expect(rows).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('keeps the counts of a failed flush and writes them with the next one', async () => {
    const app = await startTestApp({ RATE_LIMITS: 'off', ANALYTICS_FLUSH_INTERVAL_MS: '60000' });
    const dead = knexFactory({
      client: 'pg',
      connection: 'postgres://postgres@127.0.0.1:1/none',
      pool: { min: 0, max: 1 },
    });
    try {
      const dev = await newDeveloper(app, 'analytics-outage');
      const recorder = app.ctx.apiCalls as PostgresApiCallRecorder;
      const live = (recorder as unknown as { knex: unknown }).knex;
      (recorder as unknown as { knex: unknown }).knex = dead; // the database is unreachable
      const record = (latencyMs: number) =>
        recorder.record({
          accountId: dev.publisherId,
          environment: 'live',
          method: 'GET',
          route: '/api/v2/developers/secrets',
          status: 200,
          latencyMs,
        });
      record(1);
      record(2);
      await expect(recorder.flush()).rejects.toThrow();
      expect(recorder.pendingKeys).toBeGreaterThanOrEqual(1);
      record(3);
      (recorder as unknown as { knex: unknown }).knex = live; // back
      await recorder.flush();
      expect(recorder.pendingKeys).toBe(0);
      const [row] = await app.ctx.orm.em
        .getConnection()
        .execute(
          `select sum(calls)::int as n, sum(latency_ms_sum) as l from api_call_minutes where account_id = ?`,
          [dev.publisherId],
        );
      expect(row).toEqual({ n: 3, l: 6 });
    } finally {
      await dead.destroy();
      await app.close();
    }
  });
});
