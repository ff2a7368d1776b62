import { startWorker } from '../src/app/runtime';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { type LlmRequest, startLlmDouble } from './support/llm-double';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { call, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const MKT = '/api/marketplace';
const PERIOD = new Date().toISOString().slice(0, 7);

/**
 * Installed marketplace agents as voice sessions, and installed marketplace tools offered to the
 * model in voice sessions of the same user id (issue 13, item 6): real PostgreSQL, Temporal, MCP
 * server; the LLM is the local double.
 */
describe('marketplace agents in voice sessions', () => {
  let app: TestApp;
  let stopWorker: () => Promise<void>;
  let mcp: McpTestServer;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  const PUB = { 'x-publisher-id': 'pub_agents', 'x-publisher-name': 'Agents Inc' };
  const user = (id: string, tier = 'free') => ({ 'x-user-id': id, 'x-subscription-tier': tier });
  const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    call(app.baseUrl, method, MKT + path, { headers, body });
  const base = (id: string) => ({
    id,
    name: id,
    version: '1.0.0',
    publisher: { id: 'pub_agents', name: 'Agents Inc' },
    description: { short: `${id} item`, long: `The ${id} item, for tests.` },
  });
  const publish = async (type: 'tool' | 'agent', manifest: object) => {
    const res = await send('POST', '/publisher/submit', { type, manifest }, PUB);
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    const decided = await call(
      app.baseUrl,
      'POST',
      `/api/admin/marketplace/items/${(manifest as { id: string }).id}/review`,
      { token: TEST_ADMIN_TOKEN, body: { decision: 'approve' } },
    );
    if (decided.status !== 200) throw new Error(JSON.stringify(decided.body));
  };
  const install = async (userId: string, itemId: string, kind: 'tool' | 'agent') => {
    const res = await send('POST', `/install/${kind}`, { [`${kind}Id`]: itemId }, { 'x-user-id': userId });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  };

  beforeAll(async () => {
    mcp = await startMcpTestServer();
    llm = await startLlmDouble();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-agents-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    stopWorker = () => worker.stop();
    await publish('tool', {
      ...base('agent-adder'),
      execution: { runtime: { type: 'mcp', version: '2025-06-18' }, endpoint: mcp.url, toolName: 'add' },
      interface: {
        llmDescription: 'Adds two numbers a and b',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
      },
    });
    await publish('agent', {
      ...base('math-agent'),
      displayName: 'Math Helper',
      persona: completeManifest('math-agent'),
      tools: ['agent-adder'],
      quotas: { free: 3 },
    });
    await install('usr_math', 'agent-adder', 'tool');
    await install('usr_math', 'math-agent', 'agent');
  });
  afterAll(async () => {
    await stopWorker();
    await app.close();
    await mcp.close();
    await llm.close();
  });

  it('runs an installed agent as a voice session whose model calls an installed tool; each turn is metered', async () => {
    llm.script((req: LlmRequest) => {
      const tool = req.messages.find((m: { role: string }) => m.role === 'tool');
      if (tool) return { content: `The answer is ${JSON.parse(tool.content ?? '{}').result?.sum}.` };
      return { tool_calls: [{ id: 'c1', name: 'market__agent-adder', arguments: { a: 2, b: 40 } }] };
    });
    const started = await send('POST', '/agents/math-agent/sessions', {}, user('usr_math'));
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({ status: 'active', userId: 'usr_math' });
    const sessionId = started.body.data.id as string;

    const turn = await send(
      'POST',
      `/agents/math-agent/sessions/${sessionId}/turns`,
      { text: 'What is two plus forty?' },
      user('usr_math'),
    );
    expect(turn.status).toBe(200);
    expect(turn.body.data).toMatchObject({
      route: 'llm',
      reply: { text: 'The answer is 42.' },
      actions: [
        {
          type: 'tool',
          tool: 'market__agent-adder',
          toolId: 'marketplace/agent-adder',
          arguments: { a: 2, b: 40 },
          success: true,
          result: { sum: 42 },
        },
      ],
      error: null,
    });
    // the model was offered the installed tool, with its input schema, and the persona's prompt
    const first = llm.requests[0];
    expect(first.tools?.map((t: { function: { name: string } }) => t.function.name)).toContain(
      'market__agent-adder',
    );
    expect(first.messages[0].content).toContain('You are Ava');
    expect(mcp.calls.at(-1)).toEqual({ name: 'add', arguments: { a: 2, b: 40 } });

    // both the agent turn and the tool run it made are metered for the user
    const agentUsage = await call(app.baseUrl, 'GET', `${MKT}/usage/math-agent?period=${PERIOD}`, {
      headers: user('usr_math'),
    });
    expect(agentUsage.status).toBe(200);
    expect(agentUsage.body).toMatchObject({ itemId: 'math-agent' });
    expect(JSON.stringify(agentUsage.body)).toContain('"executions":1');
    const toolUsage = await call(app.baseUrl, 'GET', `${MKT}/usage/agent-adder?period=${PERIOD}`, {
      headers: user('usr_math'),
    });
    expect(JSON.stringify(toolUsage.body)).toContain('"executions":1');

    const transcript = await call(app.baseUrl, 'GET', `${MKT}/agents/math-agent/sessions/${sessionId}`, {
      headers: user('usr_math'),
    });
    expect(transcript.body.data.transcript).toHaveLength(1);
    const ended = await send(
      'POST',
      `/agents/math-agent/sessions/${sessionId}/end`,
      undefined,
      user('usr_math'),
    );
    expect(ended.body.data.status).toBe('ended');
  }, 60_000);

  it("offers a user's installed marketplace tools in a developer's voice sessions with the same user id", async () => {
    const dev = await newDeveloper(app, 'agents');
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('dev-agent') },
    });
    const platform = (method: string, path: string, body?: unknown) =>
      call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
    const mine = await platform('POST', '/sessions', {
      personaId: created.body.persona.id,
      userId: 'usr_math',
    });
    const other = await platform('POST', '/sessions', {
      personaId: created.body.persona.id,
      userId: 'usr_none',
    });
    const toolsOf = async (id: string) =>
      ((await platform('GET', `/sessions/${id}/context`)).body.data.tools as { name: string }[]).map(
        (t) => t.name,
      );
    expect(await toolsOf(mine.body.data.id)).toContain('market__agent-adder');
    expect(await toolsOf(other.body.data.id)).not.toContain('market__agent-adder');
  }, 60_000);

  it("a marketplace tool the developer's account installed is offered to the agent that names it, metered against the account", async () => {
    const dev = await newDeveloper(app, 'installer');
    // the console installs as the account (its publisher id is the account id)
    await install(dev.publisherId, 'agent-adder', 'tool');
    const persona = async (slug: string, tools?: object[]) =>
      (
        await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
          token: dev.token,
          body: { manifest: { ...completeManifest(slug), ...(tools ? { tools } : {}) } },
        })
      ).body.persona.id as string;
    const adder = await persona('adder-agent', [{ type: 'marketplace', id: 'agent-adder' }]);
    const plain = await persona('plain-agent');
    // naming an item the account did not install is refused at save
    const refused = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: {
        manifest: { ...completeManifest('wrong-agent'), tools: [{ type: 'marketplace', id: 'math-agent' }] },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors).toEqual([
      'manifest.tools[0]: math-agent is not a marketplace tool your account installed',
    ]);
    const platform = (method: string, path: string, body?: unknown) =>
      call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
    const withAdder = (await platform('POST', '/sessions', { personaId: adder, userId: 'usr_caller' })).body
      .data.id;
    const without = (await platform('POST', '/sessions', { personaId: plain, userId: 'usr_caller' })).body
      .data.id;
    const toolsOf = async (id: string) =>
      ((await platform('GET', `/sessions/${id}/context`)).body.data.tools as { name: string }[]).map(
        (t) => t.name,
      );
    expect(await toolsOf(withAdder)).toEqual(['market__agent-adder']);
    expect(await toolsOf(without)).toEqual([]);

    llm.script((req: LlmRequest) => {
      const tool = req.messages.find((m: { role: string }) => m.role === 'tool');
      if (tool) return { content: `It is ${JSON.parse(tool.content ?? '{}').result?.sum}.` };
      return { tool_calls: [{ id: 'c1', name: 'market__agent-adder', arguments: { a: 1, b: 2 } }] };
    });
    const turn = await platform('POST', `/sessions/${withAdder}/turns`, { text: 'What is one plus two?' });
    expect(turn.status).toBe(200);
    expect(turn.body.data.reply.text).toBe('It is 3.');
    // the account's installation paid for the run, at its plan's tier; the caller paid nothing
    const usage = await send('GET', '/usage/agent-adder', undefined, user(dev.publisherId));
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ userId: dev.publisherId, totals: { executions: 1 } });
    const callers = await send('GET', '/usage/agent-adder', undefined, user('usr_caller'));
    expect(callers.body).toMatchObject({ totals: { executions: 0 } });
  }, 60_000);

  it('enforces the agent quota per turn, and refuses other users, uninstalled agents and bad input', async () => {
    llm.script(() => ({ content: 'Sure.' }));
    const started = await send('POST', '/agents/math-agent/sessions', {}, user('usr_math'));
    const sessionId = started.body.data.id as string;
    const say = (headers: Record<string, string>) =>
      send('POST', `/agents/math-agent/sessions/${sessionId}/turns`, { text: 'hello' }, headers);
    // the first test used 1 of the 3 free turns this month
    expect((await say(user('usr_math'))).status).toBe(200);
    expect((await say(user('usr_math'))).status).toBe(200);
    const over = await say(user('usr_math'));
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 'QUOTA_EXCEEDED' });

    // a user without the agent can neither start a session nor talk; one with it cannot use another's session
    expect((await say(user('usr_other'))).status).toBe(403);
    const notInstalled = await send('POST', '/agents/math-agent/sessions', {}, user('usr_other'));
    expect(notInstalled.status).toBe(403);
    await install('usr_other', 'math-agent', 'agent');
    expect((await say(user('usr_other'))).status).toBe(404);
    const peek = await call(app.baseUrl, 'GET', `${MKT}/agents/math-agent/sessions/${sessionId}`, {
      headers: user('usr_other'),
    });
    expect(peek.status).toBe(404);
    expect((await send('POST', '/agents/no-such-agent/sessions', {}, user('usr_math'))).status).toBe(404);
    // a tool is not an agent
    expect((await send('POST', '/agents/agent-adder/sessions', {}, user('usr_math'))).status).toBe(404);
    const badTier = await send('POST', '/agents/math-agent/sessions', {}, user('usr_math', 'gold'));
    expect(badTier.status).toBe(400);
    const badBody = await send(
      'POST',
      `/agents/math-agent/sessions/${sessionId}/turns`,
      { text: '' },
      user('usr_math'),
    );
    expect(badBody.status).toBe(400);
  }, 60_000);
});
