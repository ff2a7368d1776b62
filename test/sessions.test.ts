import { defaultPayloadConverter } from '@temporalio/common';
import { startWorker } from '../src/app/runtime';
import { runAgentToolOnce, TOOL_OUTCOME_UNKNOWN } from '../src/sessions/agent-tools';
import { Session } from '../src/sessions/session.entity';
import { AccountIdKey, PersonaIdKey, UserIdKey } from '../src/temporal/search-attributes';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { startHostileServer } from './support/hostile-server';
import { startLlmDouble } from './support/llm-double';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

/**
 * An app with its own task queue and a worker built from the app's configuration: the agent's steps
 * run in the worker, so this is what makes them use this suite's LLM double (or none).
 */
async function appWithWorker(label: string, env: Record<string, string>) {
  const app = await startTestApp({
    ...env,
    TEMPORAL_TASK_QUEUE: `vp-${label}-${process.pid}`,
    RATE_LIMITS: 'off',
  });
  const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
  return {
    app,
    close: async () => {
      await worker.stop();
      await app.close();
    },
  };
}

/** The Workflow Update that identifies turn `index` of a session (what a retried step is given). */
async function updateIdOf(app: TestApp, sessionId: string, index: number): Promise<string> {
  const [row] = await app.ctx.orm.em
    .fork()
    .getConnection()
    .execute('select update_id from session_turns where session_id = ? and index = ?', [sessionId, index]);
  return row.update_id as string;
}

const platform = (app: TestApp, key: string, method: string, path: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

async function persona(
  app: TestApp,
  dev: Developer,
  slug: string,
  publish: boolean,
  tools: object[] = [],
): Promise<string> {
  const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: dev.token,
    body: { manifest: { ...completeManifest(slug), tools } },
  });
  const id = created.body.persona.id as string;
  if (publish) {
    await call(app.baseUrl, 'POST', `/api/v1/developers/personas/${id}/submit`, { token: dev.token });
    const decided = await call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(decided.body.persona.status).toBe('published');
  }
  return id;
}

/** The session's history once `turns` updates have completed in it. */
async function settledHistory(app: TestApp, id: string, turns: number) {
  const handle = app.ctx.temporal.workflow.getHandle(id);
  return eventually(async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const done = events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes).length;
    return done >= turns && events;
  });
}

async function eventsOf(app: TestApp, type: string, needle: string) {
  const rows = await app.ctx.orm.em
    .fork()
    .getConnection()
    .execute(`select payload from events where type = ? and payload like ? order by created_at, id`, [
      type,
      `%${needle}%`,
    ]);
  return rows.map((r) => JSON.parse(r.payload as string));
}

describe('voice sessions', () => {
  let app: TestApp;
  let closeApp: () => Promise<void>;
  let llm: LlmDouble;
  let mcp: McpTestServer;
  let serverId: string;
  let dev: Developer;
  let published: string;
  let draft: string;
  const live = (method: string, path: string, body?: unknown) =>
    platform(app, dev.liveKey, method, path, body);
  const test = (method: string, path: string, body?: unknown) =>
    platform(app, dev.testKey, method, path, body);
  const start = async (userId = 'caller-1', personaId = published) => {
    const res = await live('POST', '/sessions', { personaId, userId });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const say = async (sessionId: string, text: string, extra: Record<string, unknown> = {}) => {
    const res = await live('POST', `/sessions/${sessionId}/turns`, { text, ...extra });
    expect([text, res.status]).toEqual([text, 200]);
    return res.body.data;
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    mcp = await startMcpTestServer();
    ({ app, close: closeApp } = await appWithWorker('sessions', { LLM_BASE_URL: llm.baseUrl }));
    dev = await newDeveloper(app, 'sessions');
    const server = await live('POST', '/mcp-servers', {
      name: 'orders',
      transport: 'http',
      endpoint: mcp.url,
    });
    expect(server.status).toBe(201);
    serverId = server.body.data.id;
    // the agents are offered the orders server's tools (docs/personas.md "Tools")
    published = await persona(app, dev, 'session-agent', true, [{ type: 'mcp_server', id: serverId }]);
    draft = await persona(app, dev, 'session-draft', false, [{ type: 'mcp_server', id: serverId }]);
    const wf = await live('POST', '/workflows', {
      name: 'Opening hours',
      trigger: { type: 'voice_command', config: { command: 'what are your opening hours' } },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'say', type: 'speak', config: { text: 'We are open nine to five, Monday to Friday.' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { sourceId: 'start', targetId: 'say' },
        { sourceId: 'say', targetId: 'end' },
      ],
    });
    expect(wf.status).toBe(201);
  });
  afterAll(async () => {
    await closeApp?.();
    await mcp?.close();
    await llm?.close();
  });
  beforeEach(() => llm.script(undefined));

  it('starts with the greeting and session.started; live keys only with published personas', async () => {
    const refused = await live('POST', '/sessions', { personaId: draft, userId: 'u' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain('published');
    const sandbox = await test('POST', '/sessions', { personaId: draft, userId: 'u' });
    expect(sandbox.status).toBe(201);

    const res = await live('POST', '/sessions', {
      personaId: published,
      userId: 'caller-9',
      metadata: { channel: 'phone' },
    });
    expect(res.status).toBe(201);
    const session = res.body.data;
    expect(session).toMatchObject({
      id: expect.stringMatching(/^sess_/),
      status: 'active',
      personaId: published,
      userId: 'caller-9',
      metadata: { channel: 'phone' },
      greeting: 'Hi, this is Ava from Homegoods. How can I help?',
      startedAt: expect.any(String),
      endedAt: null,
      turnCount: 0,
    });
    const [started] = await eventsOf(app, 'session.started', session.id);
    expect(started.data).toEqual({ sessionId: session.id, userId: 'caller-9', personaId: published });
    const described = await app.ctx.temporal.workflow.getHandle(session.id).describe();
    expect(described.type).toBe('voiceSessionWorkflow');
    expect(described.typedSearchAttributes.get(AccountIdKey)).toBe(dev.publisherId);
    expect(described.typedSearchAttributes.get(PersonaIdKey)).toBe(published);
    expect(described.typedSearchAttributes.get(UserIdKey)).toBe('caller-9');
  });

  it('a matching voice command runs its workflow (with the session id) and speaks its result', async () => {
    const id = await start();
    const turn = await say(id, 'What are your opening hours?');
    expect(turn).toMatchObject({
      index: 1,
      route: 'workflow',
      reply: { text: 'We are open nine to five, Monday to Friday.' },
      actions: [{ type: 'workflow', workflowName: 'Opening hours', status: 'completed' }],
      error: null,
    });
    const executionId = turn.actions[0].executionId;
    const execution = await live('GET', `/workflows/${turn.actions[0].workflowId}/executions/${executionId}`);
    expect(execution.body.data).toMatchObject({ status: 'completed', sessionId: id });
    expect(execution.body.data.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual([
      'start',
      'say',
      'end',
    ]);
    expect(llm.requests).toHaveLength(0);
    // a speak-only graph runs while planning: the same events as any execution, with the session id
    const [started] = await eventsOf(app, 'workflow.started', executionId);
    expect(started.data).toMatchObject({ executionId, sessionId: id, input: { sessionId: id } });
    const steps = await eventsOf(app, 'workflow.step.completed', executionId);
    expect(steps.map((e) => e.data.nodeId).sort()).toEqual(['end', 'say', 'start']);
    const [completed] = await eventsOf(app, 'workflow.completed', executionId);
    expect(completed.data).toMatchObject({
      executionId,
      sessionId: id,
      status: 'completed',
      stepsExecuted: 3,
    });
    const runs = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select id, status from workflow_executions where session_id = ?', [id]);
    expect(runs).toEqual([{ id: executionId, status: 'completed' }]);
    expect(await eventsOf(app, 'workflow.started', executionId)).toHaveLength(1);
  });

  it('each turn is recorded by one Workflow Update whose result is the turn; turns go in order', async () => {
    const id = await start('caller-recorded');
    const turn = await say(id, 'What are your opening hours?');
    const session = await live('GET', `/sessions/${id}`);
    expect(session.body.data.transcript).toEqual([turn]);
    expect(turn).toMatchObject({ interrupted: false, spokenText: turn.reply.text });
    // the Workflow Update's result is the turn (what the Web UI shows)
    const events = await settledHistory(app, id, 1);
    const completed = events.find((e) => e.workflowExecutionUpdateCompletedEventAttributes)!
      .workflowExecutionUpdateCompletedEventAttributes!;
    const payload = completed.outcome?.success?.payloads?.[0];
    expect(defaultPayloadConverter.fromPayload(payload!)).toEqual(turn);
    expect((await say(id, 'What are your opening hours?')).index).toBe(2);
  });

  it('a voice command with a tool step runs its graph in the session workflow, step by step', async () => {
    const created = await live('POST', '/workflows', {
      name: 'Order status',
      trigger: { type: 'voice_command', config: { command: 'check order status' } },
      nodes: [
        { id: 'start', type: 'start' },
        {
          id: 'lookup',
          type: 'mcp_call',
          config: { serverId, toolName: 'lookup_order', arguments: { orderId: 'B-7' } },
        },
        {
          id: 'say',
          type: 'speak',
          config: { text: 'Order {{lookup.result.orderId}} is {{lookup.result.status}}.' },
        },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { sourceId: 'start', targetId: 'lookup' },
        { sourceId: 'lookup', targetId: 'say' },
        { sourceId: 'say', targetId: 'end' },
      ],
    });
    expect(created.status).toBe(201);
    try {
      const id = await start('caller-order-status');
      const turn = await say(id, 'Check order status please');
      expect(turn).toMatchObject({
        route: 'workflow',
        reply: { text: 'Order B-7 is shipped.' },
        actions: [{ type: 'workflow', workflowName: 'Order status', status: 'completed' }],
        error: null,
      });
      const executionId = turn.actions[0].executionId;
      const execution = await live('GET', `/workflows/${created.body.data.id}/executions/${executionId}`);
      expect(execution.body.data).toMatchObject({ status: 'completed', sessionId: id });
      const steps = await eventsOf(app, 'workflow.step.completed', executionId);
      expect(steps.map((e) => e.data.nodeId).sort()).toEqual(['end', 'lookup', 'say', 'start']);
      const history = await app.ctx.temporal.workflow.getHandle(id).fetchHistory();
      const markers = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes).length;
      expect(markers).toBeGreaterThanOrEqual(3); // the tool, the progress, the finish and the record
    } finally {
      await live('DELETE', `/workflows/${created.body.data.id}`);
    }
  });

  it('the model calls an MCP tool with arguments; the result goes back to it; tool events carry the session id', async () => {
    const id = await start('caller-tools');
    llm.script((req, i) => {
      if (i === 0)
        return {
          tool_calls: [{ id: 'call_1', name: 'orders__lookup_order', arguments: { orderId: 'A-42' } }],
        };
      const toolMessage = req.messages.find((m) => m.role === 'tool');
      return { content: `Your order is ${JSON.parse(toolMessage!.content!).result.status}.` };
    });
    const turn = await say(id, 'Where is my order A-42?');
    expect(turn).toMatchObject({
      route: 'llm',
      reply: { text: 'Your order is shipped.' },
      error: null,
      actions: [
        {
          type: 'tool',
          tool: 'orders__lookup_order',
          arguments: { orderId: 'A-42' },
          success: true,
          result: { orderId: 'A-42', status: 'shipped' },
        },
      ],
    });
    const first = llm.requests[0];
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(
      expect.arrayContaining(['orders__add', 'orders__lookup_order', 'orders__fails']),
    );
    const lookup = first.tools.find(
      (t: { function: { name: string } }) => t.function.name === 'orders__lookup_order',
    );
    expect(lookup.function.parameters.properties.orderId).toBeDefined();
    expect(first.messages[0].role).toBe('system');
    expect(first.messages[0].content).toContain('You are Ava');
    expect(first.messages.at(-1)).toEqual({ role: 'user', content: 'Where is my order A-42?' });
    expect(mcp.calls.at(-1)).toEqual({ name: 'lookup_order', arguments: { orderId: 'A-42' } });
    const [called] = await eventsOf(app, 'tool.called', id);
    expect(called.data).toMatchObject({
      sessionId: id,
      toolName: 'lookup_order',
      arguments: { orderId: 'A-42' },
    });
    const [completed] = await eventsOf(app, 'tool.completed', id);
    expect(completed.data).toMatchObject({ sessionId: id, success: true, duration: expect.any(Number) });
    // the tool ran in the session's workflow (a `tools` update), then the turn was recorded (`turn`)
    const history = await settledHistory(app, id, 2);
    const updates = history
      .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name)
      .filter(Boolean);
    expect(updates).toEqual(['tools', 'turn']);
    // the round names the tool and what it runs; the description and schema stay out of the history
    const round = history.find(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'tools',
    )!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!.payloads![0];
    const sent = defaultPayloadConverter.fromPayload<{ calls: { tool: object }[] }>(round);
    expect(sent.calls.map((c) => c.tool)).toEqual([
      {
        name: 'orders__lookup_order',
        ref: { kind: 'mcp', serverId: expect.any(String), toolName: 'lookup_order' },
      },
    ]);
    const turnId = await updateIdOf(app, id, 1);
    const kept = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select turn_id, call_id, outcome from session_tool_calls where session_id = ?', [id]);
    expect(kept).toEqual([
      { turn_id: turnId, call_id: 'call_1', outcome: expect.objectContaining({ action: turn.actions[0] }) },
    ]);
    // the call run again, as a step run again after a crash: the kept outcome, no second tool call
    const toolCalls = mcp.calls.length;
    const again = await runAgentToolOnce(app.ctx, {
      sessionId: id,
      turnId,
      call: {
        id: 'call_1',
        type: 'function',
        function: { name: 'orders__lookup_order', arguments: '{"orderId":"A-42"}' },
      },
      tool: null,
      owner: { accountId: dev.publisherId, environment: 'live' },
      caller: { userId: 'caller-tools', tier: 'free' },
    });
    expect(again.action).toEqual(turn.actions[0]);
    expect(mcp.calls.length).toBe(toolCalls);
    // a call that started and never finished (its worker died) is not run again: its outcome is unknown
    await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(`insert into session_tool_calls (session_id, turn_id, call_id) values (?, 'crashed', 'c9')`, [
        id,
      ]);
    const unknown = await runAgentToolOnce(app.ctx, {
      sessionId: id,
      turnId: 'crashed',
      call: {
        id: 'c9',
        type: 'function',
        function: { name: 'orders__lookup_order', arguments: '{"orderId":"A-42"}' },
      },
      tool: null,
      owner: { accountId: dev.publisherId, environment: 'live' },
      caller: { userId: 'caller-tools', tier: 'free' },
    });
    expect(unknown.action).toMatchObject({ success: false, error: TOOL_OUTCOME_UNKNOWN });
    expect(mcp.calls.length).toBe(toolCalls);

    // a test session's mocks: sent with the round as its turn loaded them, or looked up when a round
    // came without them; a mocked call runs nothing
    await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(`insert into session_tool_mocks (session_id, mocks) values (?, ?::jsonb)`, [
        id,
        JSON.stringify({ orders__lookup_order: { status: 'looked up' } }),
      ]);
    const mockedCall = (callId: string, mock?: { result: unknown } | null) =>
      runAgentToolOnce(app.ctx, {
        sessionId: id,
        turnId: 'mocked',
        call: { id: callId, type: 'function', function: { name: 'orders__lookup_order', arguments: '{}' } },
        tool: null,
        owner: { accountId: dev.publisherId, environment: 'test' },
        caller: { userId: 'caller-tools', tier: 'free' },
        ...(mock !== undefined ? { mock } : {}),
      });
    expect((await mockedCall('m1', { result: { status: 'sent' } })).action).toMatchObject({
      toolId: 'mock',
      success: true,
      result: { status: 'sent' },
    });
    expect((await mockedCall('m2')).action).toMatchObject({
      toolId: 'mock',
      result: { status: 'looked up' },
    });
    expect((await mockedCall('m3', null)).action).toMatchObject({ success: false, toolId: 'unknown' });
    expect(mcp.calls.length).toBe(toolCalls);
  });

  it('several rounds of tool calls (at most 3 completions), failures reported to the model', async () => {
    const id = await start('caller-rounds');
    llm.script((_req, i) => {
      if (i === 0) return { tool_calls: [{ id: 'c1', name: 'orders__add', arguments: { a: 2, b: 3 } }] };
      if (i === 1)
        return {
          tool_calls: [
            { id: 'c2', name: 'orders__fails', arguments: {} },
            { id: 'c3', name: 'orders__add', arguments: { a: 'x' } },
          ],
        };
      return { content: 'Two plus three is five.' };
    });
    const turn = await say(id, 'Add two and three please');
    expect(llm.requests).toHaveLength(3);
    expect(turn.reply.text).toBe('Two plus three is five.');
    expect(turn.actions.map((a: { tool: string; success: boolean }) => [a.tool, a.success])).toEqual([
      ['orders__add', true],
      ['orders__fails', false],
      ['orders__add', false],
    ]);
    expect(turn.actions[0].result).toEqual({ sum: 5 });
    const toolMessages = llm.requests[2].messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
    expect(JSON.parse(toolMessages[1].content).error).toContain('inventory backend unavailable');

    // a model that keeps asking for tools is stopped after the third completion
    llm.script((_req, i) => ({
      content: i >= 0 ? 'thinking' : null,
      tool_calls: [{ id: `k${i}`, name: 'orders__add', arguments: { a: 1, b: 1 } }],
    }));
    const before = llm.requests.length;
    const looping = await say(id, 'keep adding');
    expect(llm.requests.length - before).toBe(3);
    expect(looping.actions).toHaveLength(2);
    expect(looping.error).toContain('3 rounds');
  });

  it('a tool whose answer passes its cap fails in the turn with errorCode RESPONSE_TOO_LARGE', async () => {
    const hostile = await startHostileServer(2 * 1024 * 1024); // tools/call answers 2 MiB; the cap is 1
    try {
      // a developer of its own, whose agent names the hostile server
      const other = await newDeveloper(app, 'sessions-cap');
      const key = other.testKey;
      const server = await platform(app, key, 'POST', '/mcp-servers', {
        name: 'bulky',
        transport: 'http',
        endpoint: hostile.mcpUrl,
      });
      expect(server.status).toBe(201);
      const personaId = await persona(app, other, 'bulky-agent', false, [
        { type: 'mcp_server', id: server.body.data.id },
      ]);
      const session = await platform(app, key, 'POST', '/sessions', { personaId, userId: 'caller-cap' });
      expect(session.status).toBe(201);
      llm.script((req) =>
        req.messages.some((m) => m.role === 'tool')
          ? { content: 'That answer was too large to read.' }
          : { tool_calls: [{ id: 'big_1', name: 'bulky__dump', arguments: {} }] },
      );
      const turn = await platform(app, key, 'POST', `/sessions/${session.body.data.id}/turns`, {
        text: 'Dump everything',
      });
      expect(turn.status).toBe(200);
      const failed = {
        type: 'tool',
        tool: 'bulky__dump',
        success: false,
        errorCode: 'RESPONSE_TOO_LARGE',
        error: expect.stringMatching(/Response too large/),
      };
      expect(turn.body.data.actions).toEqual([expect.objectContaining(failed)]);
      const stored = await platform(app, key, 'GET', `/sessions/${session.body.data.id}`);
      expect(stored.body.data.transcript[0].actions).toEqual([expect.objectContaining(failed)]);
    } finally {
      await hostile.close();
    }
  });

  it('an out-of-scope topic is refused politely without calling a model or tool', async () => {
    const id = await start('caller-scope');
    const turn = await say(id, 'Can you give me some medical advice about my back?');
    expect(turn).toMatchObject({ route: 'refusal', actions: [], error: null });
    expect(turn.reply.text).toContain("can't help with medical advice");
    expect(llm.requests).toHaveLength(0);
  });

  it("an activity logged during the session is in the next turn's context; GET /context shows exactly that", async () => {
    const id = await start('caller-ctx');
    await say(id, 'hello there');
    const logged = await live('POST', '/activities', {
      type: 'order.placed',
      payload: { orderId: 'B-7', total: 129.5 },
      userId: 'caller-ctx',
    });
    expect(logged.status).toBe(201);
    await live('POST', '/activities', { type: 'other.user', payload: { x: 1 }, userId: 'someone-else' });
    const context = (await live('GET', `/sessions/${id}/context`)).body.data;
    expect(context.system).toContain('order.placed');
    expect(context.system).toContain('B-7');
    expect(context.system).not.toContain('other.user');
    expect(context.history).toEqual([
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'echo: hello there' },
    ]);
    await say(id, 'what did I order?');
    const sent = llm.requests.at(-1);
    expect(sent.messages[0]).toEqual({ role: 'system', content: context.system });
    expect(sent.messages.slice(1, 3)).toEqual(context.history);
    expect(sent.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(
      context.tools.map((t: { name: string }) => t.name),
    );
  });

  it("the persona's conversation settings: instructions and language in the system prompt, its model called, shown in GET /context", async () => {
    const conversation = {
      instructions: 'Always confirm the order number back to the caller before looking it up.',
      language: 'fr-ca',
      model: { name: 'support-model', temperature: 0.3, maxTokens: 300 },
    };
    const tooLong = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: {
        manifest: { ...completeManifest('conv-long'), conversation: { instructions: 'x'.repeat(8001) } },
      },
    });
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(tooLong.body)).toContain('conversation.instructions');
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: { ...completeManifest('conv-agent'), conversation } },
    });
    expect(created.status).toBe(201);
    const personaId = created.body.persona.id as string;
    const checked = await call(app.baseUrl, 'POST', `/api/v1/developers/personas/${personaId}/validate`, {
      token: dev.token,
    });
    expect(checked.body).toMatchObject({ valid: true, errors: [] });
    expect(checked.body.warnings.join('\n')).toContain(
      "conversation.language: fr-CA is not the language of the persona's voice",
    );
    const res = await test('POST', '/sessions', { personaId, userId: 'caller-conv' });
    const id = res.body.data.id as string;
    const turn = await test('POST', `/sessions/${id}/turns`, { text: 'hello there' });
    expect(turn.status).toBe(200);
    const sent = llm.requests.at(-1);
    expect(sent).toMatchObject({ model: 'support-model', temperature: 0.3, max_tokens: 300 });
    const system = sent.messages[0].content as string;
    const description = completeManifest('conv-agent').identity.description as string;
    expect(system.indexOf(description)).toBeLessThan(system.indexOf(conversation.instructions));
    expect(system).toContain('Speak Canadian French (fr-CA)');
    const context = (await test('GET', `/sessions/${id}/context`)).body.data;
    expect(context.system).toBe(system);
    expect(context.conversation).toEqual({
      instructions: conversation.instructions,
      language: 'fr-CA',
      model: { provider: null, name: 'support-model', temperature: 0.3, maxTokens: 300 },
    });
    // without the group: LLM_MODEL, the provider's own temperature and token limit
    const plain = (await live('GET', `/sessions/${await start('caller-plain')}/context`)).body.data;
    expect(plain.conversation).toEqual({
      instructions: null,
      language: null,
      model: { provider: null, name: app.ctx.config.llm.model, temperature: null, maxTokens: null },
    });
  });

  it('lists sessions by transcript text (case-insensitive, % and _ taken literally) and by start time', async () => {
    const id = await start('caller-search');
    await say(id, 'Is the Blue Teapot 50% off_today?');
    const other = await start('caller-search');
    const ids = async (query: string) =>
      ((await live('GET', `/sessions?userId=caller-search&${query}`)).body.data as { id: string }[]).map(
        (s) => s.id,
      );
    expect(await ids('q=blue%20teapot')).toEqual([id]);
    expect(await ids(`q=${encodeURIComponent('50% off_')}`)).toEqual([id]);
    expect(await ids(`q=${encodeURIComponent('5_%')}`)).toEqual([]);
    expect(await ids('q=nothing%20like%20it')).toEqual([]);
    const now = new Date();
    const hourAgo = new Date(now.getTime() - 3_600_000).toISOString();
    const inAnHour = new Date(now.getTime() + 3_600_000).toISOString();
    expect(await ids(`from=${hourAgo}&to=${inAnHour}`)).toEqual([other, id]);
    expect(await ids(`from=${inAnHour}`)).toEqual([]);
    expect(await ids(`to=${hourAgo}`)).toEqual([]);
    const bad = await live('GET', '/sessions?from=yesterday');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.validationErrors)).toContain('from');
  });

  it('a model failure is a spoken fallback with the error, never a 500 or a stuck session', async () => {
    const id = await start('caller-fail');
    llm.script(() => ({ status: 500 }));
    const failed = await say(id, 'hello?');
    expect(failed.reply.text).toContain('trouble');
    expect(failed.error).toContain('500');
    llm.script(() => ({
      tool_calls: [{ id: 'bad', name: 'no_such_tool', arguments: '{not json' }] as never,
    }));
    llm.script(() => ({ content: null, tool_calls: undefined }));
    const empty = await say(id, 'hello again?');
    expect(empty.error).toContain('empty');
    llm.script(undefined);
    const fine = await say(id, 'are you back?');
    expect(fine).toMatchObject({ index: 3, reply: { text: 'echo: are you back?' }, error: null });
  });

  it('speaks the reply in the persona’s voice on request', async () => {
    const id = await start('caller-audio');
    const turn = await say(id, 'What are your opening hours?', { audio: true });
    expect(turn.reply.audioUrl).toMatch(/^data:audio\/mpeg;base64,/);
  });

  it('ends with session.ended (duration in ms, turn count); a turn after that is a 409; the transcript stays', async () => {
    const id = await start('caller-end');
    await say(id, 'hello');
    await say(id, 'What are your opening hours?');
    const ended = await live('POST', `/sessions/${id}/end`);
    expect(ended.body.data).toMatchObject({
      status: 'ended',
      endReason: 'ended',
      turnCount: 2,
      endedAt: expect.any(String),
    });
    const [event] = await eventsOf(app, 'session.ended', id);
    expect(event.data).toMatchObject({
      sessionId: id,
      userId: 'caller-end',
      personaId: published,
      turnCount: 2,
    });
    expect(event.data.duration).toBeGreaterThan(0);
    const after = await live('POST', `/sessions/${id}/turns`, { text: 'anyone there?' });
    expect(after.status).toBe(409);
    expect((await live('POST', `/sessions/${id}/end`)).body.data.status).toBe('ended');
    expect((await eventsOf(app, 'session.ended', id)).length).toBe(1);
    const detail = (await live('GET', `/sessions/${id}`)).body.data;
    expect(detail.transcript.map((t: { index: number; text: string }) => [t.index, t.text])).toEqual([
      [1, 'hello'],
      [2, 'What are your opening hours?'],
    ]);
    expect(await app.ctx.temporal.workflow.getHandle(id).result()).toMatchObject({ turnCount: 2 });
  });

  it('a session whose workflow has not started yet (Temporal was down): a turn is a 503 to retry, end ends it', async () => {
    const em = app.ctx.orm.em.fork();
    const session = em.create(Session, {
      account: dev.publisherId,
      environment: 'live',
      personaId: published,
      userId: 'caller-unstarted',
      greeting: 'hi',
      startedAt: new Date(),
    });
    await em.flush();
    const turn = await live('POST', `/sessions/${session.id}/turns`, { text: 'hello?' });
    expect(turn.status).toBe(503);
    expect(turn.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(turn.headers.get('retry-after'))).toBeGreaterThan(0);
    const ended = await live('POST', `/sessions/${session.id}/end`);
    expect(ended.body.data).toMatchObject({ status: 'ended', endReason: 'ended', turnCount: 0 });
    expect(await eventsOf(app, 'session.ended', session.id)).toHaveLength(1);
  });

  it('lists with filters and pagination; bad input is a 400 naming the field; other accounts and environments get 404', async () => {
    const id = await start('caller-list');
    const listed = await live('GET', '/sessions?userId=caller-list&status=active&limit=1');
    expect(listed.body.pagination).toEqual({ total: 1, limit: 1, offset: 0 });
    expect(listed.body.data[0].id).toBe(id);
    expect(
      (await live('GET', `/sessions?personaId=${published}&limit=200`)).body.data.length,
    ).toBeGreaterThan(1);

    const bad: Array<[string, string, unknown, string]> = [
      ['POST', '/sessions', { personaId: 'nope', userId: 'u' }, 'personaId'],
      ['POST', '/sessions', { personaId: published }, 'userId'],
      ['POST', '/sessions', { personaId: published, userId: 'u', extra: 1 }, 'extra'],
      ['POST', `/sessions/${id}/turns`, { text: '' }, 'text'],
      ['POST', `/sessions/${id}/turns`, { text: 'x', audio: 'yes' }, 'audio'],
      ['GET', '/sessions?status=paused', undefined, 'status'],
      ['GET', '/sessions?limit=0', undefined, 'limit'],
    ];
    for (const [method, path, body, field] of bad) {
      const res = await live(method, path, body);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.validationErrors.join(' ')).toContain(field);
    }
    const other = await newDeveloper(app, 'sessions-other');
    for (const [key, label] of [
      [other.liveKey, 'another account'],
      [dev.testKey, 'the test environment'],
    ]) {
      for (const [method, path] of [
        ['GET', `/sessions/${id}`],
        ['GET', `/sessions/${id}/context`],
        ['POST', `/sessions/${id}/turns`],
        ['POST', `/sessions/${id}/end`],
      ]) {
        // a turn takes a body; ending takes none
        const body = path.endsWith('/turns') ? { text: 'hi' } : undefined;
        const res = await platform(app, key, method, path, body);
        expect([label, path, res.status]).toEqual([label, path, 404]);
      }
    }
    expect(
      (await platform(app, other.liveKey, 'POST', '/sessions', { personaId: published, userId: 'x' })).status,
    ).toBe(404);
  });
});

describe('sessions without an LLM, idle timeouts and long conversations', () => {
  let app: TestApp;
  let closeApp: () => Promise<void>;
  let dev: Developer;
  let personaId: string;
  beforeAll(async () => {
    ({ app, close: closeApp } = await appWithWorker('sessions-plain', {
      SESSION_IDLE_TIMEOUT_S: '2',
      SESSION_TURNS_PER_RUN: '2',
    }));
    dev = await newDeveloper(app, 'sessions-nollm');
    personaId = await persona(app, dev, 'plain-agent', false);
    await platform(app, dev.testKey, 'POST', '/workflows', {
      name: 'Reset password',
      trigger: { type: 'voice_command', config: { command: 'reset my password' } },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'say', type: 'speak', config: { text: 'I sent you a reset link.' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { sourceId: 'start', targetId: 'say' },
        { sourceId: 'say', targetId: 'end' },
      ],
    });
  });
  afterAll(() => closeApp?.());
  const start = async () =>
    (await platform(app, dev.testKey, 'POST', '/sessions', { personaId, userId: 'caller' })).body.data
      .id as string;
  const say = async (id: string, text: string) =>
    (await platform(app, dev.testKey, 'POST', `/sessions/${id}/turns`, { text })).body.data;

  it('with no LLM the agent says which voice commands it knows', async () => {
    const id = await start();
    const turn = await say(id, 'tell me a joke');
    expect(turn).toMatchObject({ route: 'fallback', actions: [] });
    expect(turn.reply.text).toContain('"reset my password"');
  });

  it('continues as new every SESSION_TURNS_PER_RUN turns, and the conversation goes on', async () => {
    const id = await start();
    const firstRun = (await app.ctx.temporal.workflow.getHandle(id).describe()).runId;
    for (let i = 1; i <= 5; i++) expect((await say(id, `turn ${i}`)).index).toBe(i);
    const described = await app.ctx.temporal.workflow.getHandle(id).describe();
    expect(described.runId).not.toBe(firstRun);
    expect(described.historyLength).toBeLessThan(60);
    expect((await say(id, 'reset my password')).reply.text).toBe('I sent you a reset link.');
    const detail = (await platform(app, dev.testKey, 'GET', `/sessions/${id}`)).body.data;
    expect(detail.turnCount).toBe(6);
  });

  it('counts the idle timeout from the last turn: turns keep a session open past it, one timer per idle period', async () => {
    const id = await start();
    for (let i = 0; i < 4; i++) {
      await say(id, `still here ${i}`);
      await new Promise((r) => setTimeout(r, 900)); // 3.6 s of turns against a 2 s idle timeout
    }
    expect((await platform(app, dev.testKey, 'GET', `/sessions/${id}`)).body.data.status).toBe('active');
    // the turns started no timer of their own: at most one per idle period (and one per run)
    const handle = app.ctx.temporal.workflow.getHandle(id);
    let timers = 0;
    for await (const event of (await handle.fetchHistory()).events ?? [])
      if (event.timerStartedEventAttributes) timers++;
    expect(timers).toBeLessThanOrEqual(2);
    const ended = await eventually(async () => {
      const r = await platform(app, dev.testKey, 'GET', `/sessions/${id}`);
      return r.body.data.status === 'ended' && r.body.data;
    }, 20_000);
    expect(ended).toMatchObject({ endReason: 'idle_timeout', turnCount: 4 });
  });

  it('ends an idle session after SESSION_IDLE_TIMEOUT_S (a durable timer)', async () => {
    const id = await start();
    await say(id, 'hello');
    const ended = await eventually(async () => {
      const r = await platform(app, dev.testKey, 'GET', `/sessions/${id}`);
      return r.body.data.status === 'ended' && r.body.data;
    }, 20_000);
    expect(ended).toMatchObject({ endReason: 'idle_timeout', turnCount: 1 });
    const [event] = await eventsOf(app, 'session.ended', id);
    expect(event.data).toMatchObject({ turnCount: 1, reason: 'idle_timeout' });
    // the API saw this session active at the first turn; ended by its workflow since, it refuses
    const after = await platform(app, dev.testKey, 'POST', `/sessions/${id}/turns`, { text: 'still there?' });
    expect(after.status).toBe(409);
    expect(after.body.error).toMatch(/has ended/);
  });

  it('a session whose row is gone ends its workflow at the idle timeout instead of retrying for ever', async () => {
    const id = await start();
    await app.ctx.orm.em.fork().getConnection().execute('delete from sessions where id = ?', [id]);
    const result = await app.ctx.temporal.workflow.getHandle(id).result();
    expect(result).toMatchObject({ turnCount: 0, durationMs: 0 });
  });
});
