import { startWorker } from '../src/app/runtime';
import { TEST_ENV } from './support/env';
import { type LlmRequest, startLlmDouble } from './support/llm-double';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * Tools per agent (docs/personas.md "Tools"): a persona names the tools its agent is offered (custom
 * tools, MCP servers with an optional allow-list, marketplace tools its account installed, tested in
 * marketplace-agents.test.ts); the model is offered exactly those, in that order, and none when it
 * names none. What cannot be offered is refused at save, naming the entry.
 */
describe('tools per agent', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let mcp: McpTestServer;
  let dev: Developer;
  let checkStock: string;
  let orders: string;
  const api = (method: string, path: string, body?: unknown, key = dev.testKey) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });
  const savePersona = (slug: string, tools?: object[], id?: string) =>
    call(app.baseUrl, id ? 'PUT' : 'POST', `/api/v1/developers/personas${id ? `/${id}` : ''}`, {
      token: dev.token,
      body: { manifest: { ...completeManifest(slug), ...(tools ? { tools } : {}) } },
    });
  const customTool = async (name: string, key = dev.testKey) => {
    const res = await api(
      'POST',
      '/tools',
      {
        name,
        type: 'webhook',
        description: `The ${name} tool`,
        config: { url: 'https://example.com/hook', method: 'POST' },
      },
      key,
    );
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  /** The names of the tools the model was offered on one turn of a session of the persona. */
  const offeredOnATurn = async (personaId: string) => {
    const session = await api('POST', '/sessions', { personaId, userId: 'caller' });
    llm.script(() => ({ content: 'Sure.' }));
    expect((await api('POST', `/sessions/${session.body.data.id}/turns`, { text: 'Hello' })).status).toBe(
      200,
    );
    const request: LlmRequest = llm.requests[0];
    return (request.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    mcp = await startMcpTestServer();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-persona-tools-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'persona-tools');
    checkStock = await customTool('check_stock');
    await customTool('never_named');
    const server = await api('POST', '/mcp-servers', {
      name: 'orders',
      transport: 'http',
      endpoint: mcp.url,
    });
    expect(server.status).toBe(201);
    orders = server.body.data.id;
    expect((await api('GET', `/mcp-servers/${orders}/tools`)).status).toBe(200); // listed and stored
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await mcp?.close();
    await llm?.close();
  });

  it('an agent is offered exactly the tools its persona names, in that order, and none when it names none', async () => {
    const named = await savePersona('named-tools', [
      { type: 'mcp_server', id: orders, tools: ['lookup_order'] },
      { type: 'tool', id: checkStock },
    ]);
    expect(named.status).toBe(201);
    expect(named.body.persona.manifest.tools).toHaveLength(2);
    expect(await offeredOnATurn(named.body.persona.id)).toEqual(['orders__lookup_order', 'check_stock']);

    const none = await savePersona('no-tools');
    expect(await offeredOnATurn(none.body.persona.id)).toEqual([]);

    // a whole server: all of its tools, in the order it lists them
    const whole = await savePersona('whole-server', [{ type: 'mcp_server', id: orders }]);
    const offered = await offeredOnATurn(whole.body.persona.id);
    expect(offered).toEqual(expect.arrayContaining(['orders__add', 'orders__lookup_order', 'orders__slow']));
    expect(offered.every((name: string) => name.startsWith('orders__'))).toBe(true);
  });

  it('refuses at save what its agent cannot be offered, naming each entry, and changes nothing', async () => {
    const clashing = await customTool('orders__add');
    const other = await newDeveloper(app, 'persona-tools-other');
    const foreign = await call(app.baseUrl, 'POST', '/api/v2/developers/tools', {
      token: other.testKey,
      body: { name: 'theirs', type: 'webhook', config: { url: 'https://example.com/hook', method: 'POST' } },
    });
    const refused = await savePersona('refused-tools', [
      { type: 'mcp_server', id: orders },
      { type: 'tool', id: clashing },
      { type: 'tool', id: checkStock },
      { type: 'tool', id: checkStock },
      { type: 'tool', id: foreign.body.data.id },
      { type: 'mcp_server', id: orders, tools: ['no_such_tool'] },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors).toEqual([
      `manifest.tools[3]: names ${checkStock} again (as tools[2] does)`,
      `manifest.tools[4]: ${foreign.body.data.id} is not a tool of your account`,
      `manifest.tools[5]: names ${orders} again (as tools[0] does)`,
      'manifest.tools[1]: offers a tool named "orders__add", as tools[0] does',
    ]);
    expect(
      (await call(app.baseUrl, 'GET', '/api/v1/developers/personas', { token: dev.token })).body.personas.map(
        (p: { name: string; id: string }) => p.id,
      ),
    ).toHaveLength(3); // the three of the test above; nothing was created

    const draft = await savePersona('edited-tools', [{ type: 'tool', id: checkStock }]);
    const id = draft.body.persona.id as string;
    const allowList = await savePersona(
      'edited-tools',
      [{ type: 'mcp_server', id: orders, tools: ['nope'] }],
      id,
    );
    expect(allowList.status).toBe(400);
    expect(allowList.body.validationErrors).toEqual(['manifest.tools[0].tools: orders lists no tool "nope"']);
    const kept = await call(app.baseUrl, 'GET', `/api/v1/developers/personas/${id}`, { token: dev.token });
    expect(kept.body.persona.manifest.tools).toEqual([{ type: 'tool', id: checkStock }]);
    // an unknown kind of reference is refused by the manifest's schema
    const unknown = await savePersona('edited-tools', [{ type: 'webhook', id: checkStock }], id);
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body.validationErrors)).toContain('manifest.tools.0.type');
  });
});
