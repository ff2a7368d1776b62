import { startWorker } from '../src/app/runtime';
import { TEST_ENV } from './support/env';
import { type LlmRequest, startLlmDouble } from './support/llm-double';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * Voice commands that take what the caller says (docs/voice-workflows.md "Commands that take
 * parameters"): filled by pattern, by type or by the model, asked for when missing, and a command
 * that fails handed back to the model. Real PostgreSQL, a real Temporal dev server, the LLM double.
 */

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

const isExtraction = (req: LlmRequest) => /extract the parameters/.test(req.messages[0]?.content ?? '');

/** A linear graph: start → the given nodes in order → end. */
function linear(nodes: { id: string; type: string; config?: object }[]) {
  const all = [{ id: 'start', type: 'start' }, ...nodes, { id: 'end', type: 'end' }];
  return { nodes: all, edges: all.slice(1).map((n, i) => ({ sourceId: all[i].id, targetId: n.id })) };
}

describe('voice commands that take parameters', () => {
  const queue = `vp-command-parameters-${process.pid}`;
  let app: TestApp;
  let otherApi: TestApp;
  let stopWorker: () => Promise<void>;
  let llm: LlmDouble;
  let mcp: McpTestServer;
  let dev: Developer;
  let personaId: string;
  let serverId: string;
  const api = (method: string, path: string, body?: unknown, on = app) =>
    call(on.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
  const workflow = async (name: string, config: object, graph: { nodes: object[]; edges: object[] }) => {
    const res = await api('POST', '/workflows', {
      name,
      trigger: { type: 'voice_command', config },
      ...graph,
    });
    expect([name, res.status, res.body.validationErrors]).toEqual([name, 201, undefined]);
    return res.body.data.id as string;
  };
  const start = async () =>
    (await api('POST', '/sessions', { personaId, userId: 'caller-params' })).body.data.id as string;
  const say = async (sessionId: string, text: string, on = app) => {
    const res = await api('POST', `/sessions/${sessionId}/turns`, { text }, on);
    expect([text, res.status]).toEqual([text, 200]);
    return res.body.data;
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    mcp = await startMcpTestServer();
    const env = { LLM_BASE_URL: llm.baseUrl, TEMPORAL_TASK_QUEUE: queue, RATE_LIMITS: 'off' };
    app = await startTestApp(env);
    // a second API process on the same task queue: a turn may be served by either
    otherApi = await startTestApp(env);
    const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    stopWorker = () => worker.stop();
    dev = await newDeveloper(app, 'command-parameters');
    const server = await api('POST', '/mcp-servers', {
      name: 'orders',
      transport: 'http',
      endpoint: mcp.url,
    });
    serverId = server.body.data.id;
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('parameters-agent') },
    });
    personaId = created.body.persona.id;
    const lookup = (orderId: string) => ({
      id: 'lookup',
      type: 'mcp_call',
      config: { serverId, toolName: 'lookup_order', arguments: { orderId } },
    });
    const orderIdByPattern = { name: 'orderId', pattern: '\\bA-?\\d{4}\\b', description: 'the order number' };
    await workflow(
      'Parcel tracking',
      { command: 'track my parcel', parameters: [orderIdByPattern] },
      linear([
        lookup('{{trigger.orderId}}'),
        {
          id: 'say',
          type: 'speak',
          config: { text: 'Parcel {{lookup.result.orderId}} is {{lookup.result.status}}.' },
        },
      ]),
    );
    await workflow(
      'Table booking',
      { command: 'book a table for {guests} people', parameters: [{ name: 'guests', type: 'integer' }] },
      {
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'big', type: 'condition', config: { expression: 'trigger.guests > 6' } },
          { id: 'yes', type: 'speak', config: { text: 'A long table for {{trigger.guests}}, booked.' } },
          { id: 'no', type: 'speak', config: { text: 'A table for {{trigger.guests}}, booked.' } },
          { id: 'end', type: 'end' },
        ],
        edges: [
          { sourceId: 'start', targetId: 'big' },
          { sourceId: 'big', targetId: 'yes', condition: 'true' },
          { sourceId: 'big', targetId: 'no', condition: 'false' },
          { sourceId: 'yes', targetId: 'end' },
          { sourceId: 'no', targetId: 'end' },
        ],
      },
    );
    await workflow(
      'Delivery address',
      {
        command: 'change my delivery address',
        parameters: [{ name: 'street', description: 'the new street and house number' }],
      },
      linear([{ id: 'say', type: 'speak', config: { text: 'Your parcels will go to {{trigger.street}}.' } }]),
    );
    await workflow(
      'Order cancellation',
      { command: 'cancel my order', parameters: [orderIdByPattern] },
      linear([
        lookup('{{trigger.orderId}}'),
        { id: 'say', type: 'speak', config: { text: 'Order {{trigger.orderId}} is cancelled.' } },
      ]),
    );
    await workflow(
      'Stock check',
      { command: 'check the stock' },
      linear([{ id: 'stock', type: 'mcp_call', config: { serverId, toolName: 'fails' } }]),
    );
  });
  afterAll(async () => {
    await stopWorker?.();
    await otherApi?.close();
    await app?.close();
    await mcp?.close();
    await llm?.close();
  });
  beforeEach(() => llm.script(undefined));

  it('refuses a trigger with an unknown placeholder, a bad pattern or a duplicate name, naming the field', async () => {
    const before = (await api('GET', '/workflows?limit=100')).body.data.length;
    const res = await api('POST', '/workflows', {
      name: 'Broken',
      trigger: {
        type: 'voice_command',
        config: {
          command: 'where is my order {orderId} going to {city}',
          parameters: [
            { name: 'orderId', pattern: '(a+)+\\1' },
            { name: 'orderId', type: 'string' },
          ],
        },
      },
      ...linear([]),
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.validationErrors).toEqual(
      expect.arrayContaining([
        'trigger.config.command: {city} is not one of the parameters',
        expect.stringMatching(/^trigger\.config\.parameters\.0\.pattern: backreferences/),
        'trigger.config.parameters.1.name: duplicate parameter name "orderId"',
      ]),
    );
    expect((await api('GET', '/workflows?limit=100')).body.data).toHaveLength(before);
  });

  it('fills a parameter by its pattern: the tool gets it, the template and the input carry it', async () => {
    const id = await start();
    const turn = await say(id, 'Could you track my parcel a-1002 please?');
    expect(turn).toMatchObject({
      route: 'workflow',
      reply: { text: 'Parcel a-1002 is shipped.' },
      actions: [{ status: 'completed', workflowName: 'Parcel tracking', parameters: { orderId: 'a-1002' } }],
      error: null,
    });
    expect(mcp.calls.at(-1)).toEqual({ name: 'lookup_order', arguments: { orderId: 'a-1002' } });
    const { workflowId, executionId } = turn.actions[0];
    const execution = await api('GET', `/workflows/${workflowId}/executions/${executionId}`);
    expect(execution.body.data.input).toEqual({
      utterance: 'Could you track my parcel a-1002 please?',
      sessionId: id,
      userId: 'caller-params',
      trigger: { orderId: 'a-1002' },
    });
    expect(llm.requests).toHaveLength(0);
  });

  it("fills a parameter by its type from the placeholder's place; expressions read trigger.<name>", async () => {
    const id = await start();
    const small = await say(id, 'Please book a table for 4 people');
    expect(small.reply.text).toBe('A table for 4, booked.');
    expect(small.actions[0].parameters).toEqual({ guests: 4 });
    const big = await say(id, 'book a table for ten people');
    expect(big.reply.text).toBe('A long table for 10, booked.');
    expect(llm.requests).toHaveLength(0);
  });

  it('asks the model for a described parameter, in one call for a JSON object', async () => {
    llm.script((req) =>
      isExtraction(req)
        ? { content: '```json\n{"street": "12 Baker Street"}\n```' }
        : { content: 'not this' },
    );
    const id = await start();
    const turn = await say(id, "I'd like to change my delivery address, we moved to twelve Baker Street");
    expect(turn).toMatchObject({
      route: 'workflow',
      reply: { text: 'Your parcels will go to 12 Baker Street.' },
      actions: [{ status: 'completed', parameters: { street: '12 Baker Street' } }],
    });
    expect(llm.requests).toHaveLength(1);
    const [system, user] = llm.requests[0].messages;
    expect(system.content).toContain('street (string): the new street and house number');
    expect(user).toEqual({
      role: 'user',
      content: "I'd like to change my delivery address, we moved to twelve Baker Street",
    });
  });

  it('asks for a missing parameter; the next turn, served by another API process, fills it and the command runs', async () => {
    llm.script((req) => (isExtraction(req) ? { content: '{"orderId": null}' } : { content: 'model reply' }));
    const id = await start();
    const asked = await say(id, 'I want to cancel my order');
    expect(asked).toMatchObject({
      route: 'workflow',
      reply: { text: 'To do "Order cancellation" I need the order number. What is it?' },
      actions: [
        {
          type: 'workflow',
          workflowName: 'Order cancellation',
          status: 'awaiting_input',
          executionId: null,
          missing: ['orderId'],
        },
      ],
      error: null,
    });
    const answered = await say(id, "It's A-1003.", otherApi);
    expect(answered).toMatchObject({
      route: 'workflow',
      reply: { text: 'Order A-1003 is cancelled.' },
      actions: [
        { status: 'completed', workflowName: 'Order cancellation', parameters: { orderId: 'A-1003' } },
      ],
    });
    expect(mcp.calls.at(-1)).toEqual({ name: 'lookup_order', arguments: { orderId: 'A-1003' } });
    const { workflowId, executionId } = answered.actions[0];
    const execution = await api('GET', `/workflows/${workflowId}/executions/${executionId}`);
    expect(execution.body.data.input).toMatchObject({
      utterance: 'I want to cancel my order',
      trigger: { orderId: 'A-1003' },
    });
    // asked once: the turn after the command ran is an ordinary turn again
    const after = await say(id, 'thanks, that is all');
    expect(after.route).toBe('llm');
  });

  it('still missing after the question: the turn falls back to the model', async () => {
    llm.script((req) =>
      isExtraction(req) ? { content: '{"orderId": null}' } : { content: 'How else can I help?' },
    );
    const id = await start();
    expect((await say(id, 'cancel my order')).actions[0].status).toBe('awaiting_input');
    const turn = await say(id, "I don't remember it");
    expect(turn).toMatchObject({ route: 'llm', reply: { text: 'How else can I help?' }, actions: [] });
    expect(llm.requests.filter((r) => !isExtraction(r))).toHaveLength(1);
  });

  it('a command that fails hands the turn to the model, told which command failed and why', async () => {
    llm.script((req) => {
      const told = req.messages.find((m) => m.role === 'system' && /Stock check/.test(m.content ?? ''));
      return { content: told ? 'Our stock system is down; I can note your request instead.' : 'not told' };
    });
    const id = await start();
    const turn = await say(id, 'Can you check the stock please?');
    expect(turn).toMatchObject({
      route: 'workflow',
      reply: { text: 'Our stock system is down; I can note your request instead.' },
      actions: [{ type: 'workflow', workflowName: 'Stock check', status: 'failed' }],
      error: expect.stringContaining('inventory backend unavailable'),
    });
    expect(llm.requests).toHaveLength(1);
    const messages = llm.requests[0].messages as LlmRequest['messages'];
    expect(messages.at(-2)).toEqual({ role: 'user', content: 'Can you check the stock please?' });
    expect(messages.at(-1)).toMatchObject({ role: 'system' });
    expect(messages.at(-1)?.content).toMatch(/"Stock check".*failed: .*inventory backend unavailable/);
  });
});
