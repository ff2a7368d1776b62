import http from 'node:http';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { type Receiver, startReceiver } from './support/receiver';
import { storedSession } from './support/sessions';
import {
  call,
  type Developer,
  newDeveloper,
  startTestApp,
  type TestApp,
  withAppAndDeveloper,
} from './support/test-app';

let app: TestApp;
let dev: Developer;
// many test executions (rate class "expensive", 10 a minute): limits are tested elsewhere
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
  { plan: 'enterprise' },
);

/** A session of the developer's, which tool tests and executions may carry. */
let sessionId: string;
beforeAll(async () => {
  sessionId = await storedSession(app, dev);
});

let mcp: McpTestServer;
beforeAll(async () => {
  mcp = await startMcpTestServer();
});
afterAll(() => mcp.close());

const api = (method: string, path: string, body?: unknown, key = dev.liveKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

async function registerServer(body: Record<string, unknown> = {}, key = dev.liveKey) {
  const res = await api(
    'POST',
    '/mcp-servers',
    { name: 'orders', transport: 'http', endpoint: mcp.url, ...body },
    key,
  );
  expect(res.status).toBe(201);
  return res.body.data;
}

async function eventsOf(type: string, toolId: string) {
  const rows = await app.ctx.orm.em
    .fork()
    .getConnection()
    .execute(`select payload from events where type = ? and payload like ? order by created_at, id`, [
      type,
      `%${toolId}%`,
    ]);
  return rows.map((r) => JSON.parse(r.payload as string));
}

/** A plain HTTP server that is not an MCP server. */
async function startPlainServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) =>
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>nope</h1>'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('MCP servers', () => {
  it('registers with autoConnect: connects, discovers tools, caches them', async () => {
    const server = await registerServer({ description: 'Order tools', autoConnect: true });
    expect(server).toMatchObject({
      name: 'orders',
      description: 'Order tools',
      transport: 'http',
      endpoint: mcp.url,
      autoConnect: true,
      status: 'connected',
      toolCount: 5,
      lastError: null,
      headerNames: [],
    });
    expect(server.id).toMatch(/^mcp_/);
    expect(Date.parse(server.lastConnectedAt)).not.toBeNaN();

    const tools = await api('GET', `/mcp-servers/${server.id}/tools`);
    expect(tools.status).toBe(200);
    expect(tools.body.data.cached).toBe(true);
    expect(tools.body.data.tools.map((t: any) => t.name).sort()).toEqual([
      'add',
      'fails',
      'lookup_order',
      'sleep_ms',
      'slow',
    ]);
    const add = tools.body.data.tools.find((t: any) => t.name === 'add');
    expect(add).toMatchObject({ description: 'Adds two numbers', inputSchema: { type: 'object' } });
    expect(Object.keys(add.inputSchema.properties)).toEqual(['a', 'b']);
    const before = mcp.requests.length;
    await api('GET', `/mcp-servers/${server.id}/tools`);
    expect(mcp.requests.length).toBe(before); // served from the cache
    const refreshed = await api('GET', `/mcp-servers/${server.id}/tools?refresh=true`);
    expect(refreshed.body.data.cached).toBe(false);
    expect(mcp.requests.length).toBeGreaterThan(before);

    const list = await api('GET', '/mcp-servers');
    expect(list.body.success).toBe(true);
    expect(list.body.data.map((s: any) => s.id)).toContain(server.id);
  });

  it('test performs a real initialize + tools/list', async () => {
    const server = await registerServer({ autoConnect: false });
    expect(server.status).toBe('unknown');
    const res = await api('POST', `/mcp-servers/${server.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      connected: true,
      toolCount: 5,
      serverInfo: { name: 'orders-test-server', version: '1.2.3' },
    });
    expect(res.body.data.latencyMs).toEqual(expect.any(Number));
    expect((await api('GET', `/mcp-servers/${server.id}`)).body.data.status).toBe('connected');
  });

  it('a new account lists an empty array', async () => {
    const fresh = await newDeveloper(app, 'mcp-empty');
    const list = await api('GET', '/mcp-servers', undefined, fresh.liveKey);
    expect(list.body).toMatchObject({ success: true, data: [] });
  });

  it('reports an unreachable server and one that is not MCP clearly', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}/mcp`;
    await new Promise((r) => closed.close(r)); // nothing listens there any more
    const down = await registerServer({ endpoint: closedUrl });
    expect(down.status).toBe('error');
    expect(down.lastError).toBe(`Could not connect to ${closedUrl} (ECONNREFUSED)`);
    const test = await api('POST', `/mcp-servers/${down.id}/test`);
    expect(test.body.data).toMatchObject({ connected: false, error: expect.stringMatching(/ECONNREFUSED/) });
    const tools = await api('GET', `/mcp-servers/${down.id}/tools`);
    expect(tools.status).toBe(502);
    expect(tools.body.code).toBe('UPSTREAM_ERROR');

    const plain = await startPlainServer();
    try {
      const notMcp = await registerServer({ endpoint: plain.url });
      expect(notMcp.status).toBe('error');
      expect(notMcp.lastError).toMatch(/did not answer as an MCP server/);
    } finally {
      await plain.close();
    }
  });

  it('sends headers with secrets filled in; unknown secrets are a 400; values never returned', async () => {
    const guarded = await startMcpTestServer({ requireHeader: ['x-api-key', 'mcp-key-0123456789'] });
    try {
      const missing = await api('POST', '/mcp-servers', {
        name: 'guarded',
        endpoint: guarded.url,
        headers: { 'X-Api-Key': '{{secrets.MCP_KEY}}' },
      });
      expect(missing.status).toBe(400);
      expect(missing.body.validationErrors).toEqual(['secrets.MCP_KEY: no such secret']);

      await api('PUT', '/secrets/MCP_KEY', { value: 'mcp-key-0123456789' });
      const server = await registerServer({
        endpoint: guarded.url,
        headers: { 'X-Api-Key': '{{secrets.MCP_KEY}}' },
      });
      expect(server.status).toBe('connected');
      expect(server.headerNames).toEqual(['X-Api-Key']);
      expect(guarded.requests.at(-1)?.['x-api-key']).toBe('mcp-key-0123456789');
      const got = await api('GET', `/mcp-servers/${server.id}`);
      expect(JSON.stringify(got.body)).not.toContain('mcp-key-0123456789');
    } finally {
      await guarded.close();
    }
  });

  it('updates, deletes, enforces plan limits and ownership', async () => {
    const limited = await newDeveloper(app, 'mcp-limit');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await registerServer({ autoConnect: false }, limited.liveKey)).id);
    const fourth = await api(
      'POST',
      '/mcp-servers',
      { name: 'x', endpoint: mcp.url, autoConnect: false },
      limited.liveKey,
    );
    expect(fourth.status).toBe(403);
    expect(fourth.body.code).toBe('PLAN_LIMIT_REACHED');

    const put = await api(
      'PUT',
      `/mcp-servers/${ids[0]}`,
      { name: 'renamed', autoConnect: true },
      limited.liveKey,
    );
    expect(put.body.data).toMatchObject({ name: 'renamed', autoConnect: true });
    expect((await api('GET', `/mcp-servers/${ids[0]}`)).status).toBe(404); // another account
    expect((await api('GET', `/mcp-servers/${ids[0]}`, undefined, limited.testKey)).status).toBe(404); // other env
    expect((await api('POST', `/mcp-servers/${ids[0]}/test`)).status).toBe(404);
    const del = await api('DELETE', `/mcp-servers/${ids[0]}`, undefined, limited.liveKey);
    expect(del.body.data).toEqual({ deleted: true, id: ids[0] });
    const bad = await api('POST', '/mcp-servers', {
      name: 'x',
      endpoint: 'ftp://x',
      transport: 'carrier-pigeon',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join()).toMatch(/transport:/);
  });
});

describe('custom tools', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  const createTool = async (body: Record<string, unknown>, key = dev.liveKey) => {
    const res = await api('POST', '/tools', body, key);
    expect(res.status).toBe(201);
    return res.body.data;
  };
  const testTool = (id: string, args: Record<string, unknown>, key = dev.liveKey) =>
    api('POST', `/tools/${id}/test`, { arguments: args, sessionId }, key);

  it('mcp tools call the server: structured results, JSON text, errors, unknown tools', async () => {
    const server = await registerServer();
    const add = await createTool({
      name: 'add',
      type: 'mcp',
      config: { serverId: server.id, toolName: 'add' },
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    });
    expect(add).toMatchObject({ type: 'mcp', config: { serverId: server.id, toolName: 'add' } });
    const ok = await testTool(add.id, { a: 2, b: 3 });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ success: true, result: { sum: 5 } });
    expect(ok.body.data.durationMs).toEqual(expect.any(Number));

    const bad = await testTool(add.id, { a: 'two', c: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.sort()).toEqual(
      ['arguments.a: expected number', 'arguments.b: is required', 'arguments.c: unknown parameter'].sort(),
    );

    const lookup = await createTool({
      name: 'lookup',
      type: 'mcp',
      config: { serverId: server.id, toolName: 'lookup_order' },
    });
    const looked = await api('POST', `/tools/${lookup.id}/test`, { arguments: {} });
    // parameters are empty, so the server itself rejects the missing orderId
    expect(looked.body.data.success).toBe(false);
    const lookup2 = await createTool({
      name: 'lookup2',
      type: 'mcp',
      config: { serverId: server.id, toolName: 'lookup_order' },
      parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
    });
    expect((await testTool(lookup2.id, { orderId: 'A-1' })).body.data.result).toEqual({
      orderId: 'A-1',
      status: 'shipped',
    });

    const slow = await createTool({
      name: 'slow',
      type: 'mcp',
      config: { serverId: server.id, toolName: 'slow' },
    });
    const slowRun = await testTool(slow.id, {});
    expect(slowRun.body.data).toMatchObject({ success: true, result: 'done slowly' });
    expect(slowRun.body.data.durationMs).toBeGreaterThanOrEqual(300);

    const fails = await createTool({
      name: 'fails',
      type: 'mcp',
      config: { serverId: server.id, toolName: 'fails' },
    });
    const failed = await testTool(fails.id, {});
    expect(failed.body.data).toMatchObject({
      success: false,
      error: expect.stringMatching(/inventory backend unavailable/),
    });
    const [failedEvent] = await eventsOf('tool.failed', fails.id);
    expect(failedEvent.data).toMatchObject({
      sessionId,
      toolId: fails.id,
      toolName: 'fails',
      success: false,
      error: expect.stringMatching(/inventory backend unavailable/),
      duration: expect.any(Number),
    });

    const missing = await createTool({
      name: 'ghost',
      type: 'mcp',
      config: { serverId: server.id, toolName: 'no_such_tool' },
    });
    const ghost = await testTool(missing.id, {});
    expect(ghost.body.data.success).toBe(false);
    expect(ghost.body.data.error).toMatch(/no_such_tool/);

    const other = await newDeveloper(app, 'tools-other');
    const foreign = await api(
      'POST',
      '/tools',
      { name: 'x', type: 'mcp', config: { serverId: server.id, toolName: 'add' } },
      other.liveKey,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.validationErrors).toEqual(['config.serverId: no such MCP server']);
    expect((await testTool(add.id, { a: 1, b: 1 }, other.liveKey)).status).toBe(404);
  });

  it('tool calls keep one MCP session: re-initialized once when the server forgets it, new on an edit, ended on close', async () => {
    const stateful = await startMcpTestServer({ stateful: true });
    const own = await startTestApp({ RATE_LIMITS: 'off' });
    const run = (id: string, a: number) =>
      call(own.baseUrl, 'POST', `/api/v2/developers/tools/${id}/test`, {
        token: dev.liveKey,
        body: { arguments: { a, b: 1 } },
      });
    try {
      const server = await registerServer({ endpoint: stateful.url, autoConnect: false });
      const add = await createTool({
        name: 'add-kept',
        type: 'mcp',
        config: { serverId: server.id, toolName: 'add' },
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      });
      const sums = await Promise.all([1, 2, 3].map(async (a) => (await run(add.id, a)).body.data.result));
      expect(sums).toEqual([{ sum: 2 }, { sum: 3 }, { sum: 4 }]);
      expect((await run(add.id, 4)).body.data.result).toEqual({ sum: 5 });
      expect(stateful.methods).toEqual([
        'initialize',
        'notifications/initialized',
        ...Array(4).fill('tools/call'),
      ]);
      expect(own.ctx.mcpConnections.size).toBe(1);

      stateful.dropSessions(); // as a restarted server: the kept session answers 404
      stateful.methods.length = 0;
      expect((await run(add.id, 5)).body.data).toMatchObject({ success: true, result: { sum: 6 } });
      expect(stateful.methods).toEqual([
        'tools/call',
        'initialize',
        'notifications/initialized',
        'tools/call',
      ]);

      const edited = await api('PUT', `/mcp-servers/${server.id}`, { headers: { 'X-Tenant': 'acme' } });
      expect(edited.status).toBe(200);
      stateful.methods.length = 0;
      expect((await run(add.id, 6)).body.data.result).toEqual({ sum: 7 });
      expect(stateful.methods).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
      expect(stateful.requests.at(-1)?.['x-tenant']).toBe('acme');
      expect(own.ctx.mcpConnections.size).toBe(2); // the old one closes when idle

      await own.close();
      expect(stateful.terminated).toHaveLength(2);
    } finally {
      await own.close().catch(() => undefined);
      await stateful.close();
    }
  });

  it('webhook tools send the request with secrets filled in and emit tool events without secret values', async () => {
    await api('PUT', '/secrets/CRM_TOKEN', { value: 'crm-secret-value-42' });
    const tool = await createTool({
      name: 'create_ticket',
      type: 'webhook',
      config: {
        url: receiver.url,
        method: 'post',
        headers: { Authorization: 'Bearer {{secrets.CRM_TOKEN}}' },
      },
      parameters: {
        type: 'object',
        properties: { subject: { type: 'string' }, priority: { type: 'string', enum: ['low', 'high'] } },
        required: ['subject'],
      },
    });
    expect(tool.config.method).toBe('POST');
    const res = await testTool(tool.id, { subject: 'Broken', priority: 'high' });
    expect(res.body.data).toMatchObject({ success: true, result: 'ok', statusCode: 200 });
    const [request] = receiver.requests;
    expect(request.headers.authorization).toBe('Bearer crm-secret-value-42');
    expect(JSON.parse(request.rawBody)).toEqual({ subject: 'Broken', priority: 'high' });

    expect((await testTool(tool.id, { subject: 'x', priority: 'urgent' })).body.validationErrors).toEqual([
      'arguments.priority: must be one of low, high',
    ]);

    receiver.respond([500]);
    const failed = await testTool(tool.id, { subject: 'Again' });
    expect(failed.body.data).toMatchObject({
      success: false,
      statusCode: 500,
      error: 'HTTP 500: failure 500',
    });

    const called = await eventsOf('tool.called', tool.id);
    expect(called[0].data).toMatchObject({
      sessionId,
      toolId: tool.id,
      toolName: 'create_ticket',
    });
    expect(called[0].data.arguments).toEqual({ subject: 'Broken', priority: 'high' });
    const completed = await eventsOf('tool.completed', tool.id);
    expect(completed[0].data).toMatchObject({ success: true, duration: expect.any(Number) });
    expect((await eventsOf('tool.failed', tool.id))[0].data.error).toBe('HTTP 500: failure 500');
    const everything = JSON.stringify([called, completed, res.body, failed.body]);
    expect(everything).not.toContain('crm-secret-value-42');

    const get = await createTool({
      name: 'get_order',
      type: 'webhook',
      config: { url: receiver.url, method: 'GET' },
      parameters: { type: 'object', properties: { id: { type: 'string' } } },
    });
    receiver.respond([]);
    await testTool(get.id, { id: 'A 1' });
    expect(receiver.requests.at(-1)?.path).toBe('/hooks?id=A+1');

    const unknownSecret = await createTool({
      name: 'broken',
      type: 'webhook',
      config: { url: receiver.url, method: 'POST', headers: { 'X-Key': '{{secrets.NOPE}}' } },
    });
    const refused = await testTool(unknownSecret.id, {});
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors).toEqual(['secrets.NOPE: no such secret']);
  });

  it('validates config per type and lists, updates and deletes tools', async () => {
    const bad = await api('POST', '/tools', { name: 'x', type: 'webhook', config: { url: receiver.url } });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join()).toMatch(/config\.method/);
    const badType = await api('POST', '/tools', { name: 'x', type: 'shell', config: {} });
    expect(badType.status).toBe(400);
    const badParams = await api('POST', '/tools', {
      name: 'x',
      type: 'prompt',
      config: { prompt: 'Hi {{input}}' },
      parameters: { type: 'object', properties: { n: { type: 'number', enum: ['1'] } }, required: ['m'] },
    });
    expect(badParams.status).toBe(400);
    expect(badParams.body.validationErrors.sort()).toEqual(
      [
        'parameters.properties.n.enum: enum is only for string parameters',
        'parameters.required: m is not a property',
      ].sort(),
    );

    const tool = await createTool({ name: 'greet', type: 'prompt', config: { prompt: 'Greet {{input}}' } });
    const put = await api('PUT', `/tools/${tool.id}`, {
      name: 'greet2',
      config: { prompt: 'Hello {{input}}' },
    });
    expect(put.body.data).toMatchObject({ name: 'greet2', config: { prompt: 'Hello {{input}}' } });
    const typeOnly = await api('PUT', `/tools/${tool.id}`, { type: 'webhook' });
    expect(typeOnly.body.validationErrors).toEqual(['config: required when the type changes']);
    const list = await api('GET', '/tools?type=prompt&limit=200');
    expect(list.body.data.map((t: any) => t.id)).toContain(tool.id);
    expect((await api('DELETE', `/tools/${tool.id}`)).body.data).toEqual({ deleted: true, id: tool.id });
    expect((await api('GET', `/tools/${tool.id}`)).status).toBe(404);
  });

  it('prompt tools call the OpenAI-compatible provider; without one, a clear error', async () => {
    const prompts: any[] = [];
    const llm = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        prompts.push({ path: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Bonjour, Ada!' } }] }));
      });
    });
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', r));
    const llmApp = await startTestApp({
      RATE_LIMITS: 'off',
      LLM_BASE_URL: `http://127.0.0.1:${(llm.address() as { port: number }).port}/v1`,
      LLM_API_KEY: 'llm-key-xyz',
      LLM_MODEL: 'test-model',
    });
    try {
      const tool = await createTool({
        name: 'translate',
        type: 'prompt',
        config: { prompt: 'Translate: {{input}}' },
      });
      const res = await call(llmApp.baseUrl, 'POST', `/api/v2/developers/tools/${tool.id}/test`, {
        token: dev.liveKey,
        body: { arguments: { input: 'Hello, Ada!' } },
      });
      expect(res.body).toMatchObject({ data: { success: true, result: 'Bonjour, Ada!' } });
      expect(prompts[0]).toMatchObject({
        path: '/v1/chat/completions',
        auth: 'Bearer llm-key-xyz',
        body: { model: 'test-model', messages: [{ role: 'user', content: 'Translate: Hello, Ada!' }] },
      });
      const unconfigured = await testTool(tool.id, { input: 'x' });
      expect(unconfigured.body.data).toMatchObject({
        success: false,
        error: expect.stringMatching(/LLM_BASE_URL/),
      });
    } finally {
      await llmApp.close();
      await new Promise((r) => llm.close(r));
    }
  });
});
