import { startWorker } from '../src/app/runtime';
import { TEST_ENV } from './support/env';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { eventually } from './support/receiver';
import { storedSession } from './support/sessions';
import { call, type Developer, newDeveloper, type TestApp, withAppAndDeveloper } from './support/test-app';

let app: TestApp;
let dev: Developer;
// many executions (rate class "expensive", 10 a minute): limits are tested elsewhere
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
let serverId: string;
beforeAll(async () => {
  mcp = await startMcpTestServer();
  const res = await api('POST', '/mcp-servers', { name: 'orders', transport: 'http', endpoint: mcp.url });
  expect(res.status).toBe(201);
  serverId = res.body.data.id;
});
afterAll(() => mcp.close());

const api = (method: string, path: string, body?: unknown, key = dev.liveKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

type Node = { id: string; type: string; config?: Record<string, unknown> };
type Edge = { sourceId: string; targetId: string; condition?: string };

const chain = (...ids: string[]): Edge[] => ids.slice(1).map((id, i) => ({ sourceId: ids[i], targetId: id }));

async function createWorkflow(
  nodes: Node[],
  edges: Edge[],
  extra: Record<string, unknown> = {},
  key = dev.liveKey,
) {
  const res = await api(
    'POST',
    '/workflows',
    { name: 'wf', trigger: { type: 'manual', config: {} }, nodes, edges, ...extra },
    key,
  );
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
}

async function eventsOf(executionId: string) {
  const rows = await app.ctx.orm.em
    .fork()
    .getConnection()
    .execute(`select payload from events where payload like ? order by created_at, id`, [`%${executionId}%`]);
  return rows.map((r) => JSON.parse(r.payload as string));
}

/** Order lookup → condition → one of two speak nodes → end. */
function orderGraph() {
  const nodes: Node[] = [
    { id: 'start', type: 'start' },
    {
      id: 'lookup',
      type: 'mcp_call',
      config: { serverId, toolName: 'lookup_order', arguments: { orderId: '{{input.orderId}}' } },
    },
    {
      id: 'check',
      type: 'condition',
      config: { expression: 'lookup.result.status == "shipped" && input.vip == true' },
    },
    { id: 'vip', type: 'speak', config: { text: 'Good news! Order {{lookup.result.orderId}} has shipped.' } },
    {
      id: 'regular',
      type: 'speak',
      config: { text: 'Order {{input.orderId}} is {{lookup.result.status}}.' },
    },
    { id: 'end', type: 'end' },
  ];
  const edges: Edge[] = [
    ...chain('start', 'lookup', 'check'),
    { sourceId: 'check', targetId: 'vip', condition: 'true' },
    { sourceId: 'check', targetId: 'regular', condition: 'false' },
    { sourceId: 'vip', targetId: 'end' },
    { sourceId: 'regular', targetId: 'end' },
  ];
  return { nodes, edges };
}

describe('workflow definitions', () => {
  it('creates, reads, lists, updates (version + 1) and deletes', async () => {
    const { nodes, edges } = orderGraph();
    const created = await createWorkflow(nodes, edges, {
      name: 'Order status',
      trigger: { type: 'voice_command', config: { command: 'where is my order' } },
    });
    expect(created).toMatchObject({ name: 'Order status', version: 1, nodes, description: null });
    expect(created.id).toMatch(/^wf_/);
    expect(created.edges).toEqual(edges);

    const got = await api('GET', `/workflows/${created.id}`);
    expect(got.body.data).toEqual(created);
    const list = await api('GET', '/workflows?limit=200');
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(created.id);
    expect(list.body.pagination).toMatchObject({ limit: 200, offset: 0 });

    const renamed = await api('PUT', `/workflows/${created.id}`, { name: 'Where is my order' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Where is my order', version: 2 });
    const again = await api('PUT', `/workflows/${created.id}`, {
      nodes: nodes.map((n) => (n.id === 'vip' ? { ...n, config: { text: 'Shipped!' } } : n)),
    });
    expect(again.body.data.version).toBe(3);

    // another account, and the sandbox, see nothing
    const other = await newDeveloper(app, 'other');
    expect((await api('GET', `/workflows/${created.id}`, undefined, other.liveKey)).status).toBe(404);
    expect((await api('GET', `/workflows/${created.id}`, undefined, dev.testKey)).status).toBe(404);

    expect((await api('DELETE', `/workflows/${created.id}`)).body.data).toEqual({
      deleted: true,
      id: created.id,
    });
    expect((await api('GET', `/workflows/${created.id}`)).status).toBe(404);
  });

  it('rejects an invalid definition with every problem listed, and changes nothing', async () => {
    const before = (await api('GET', '/workflows')).body.pagination.total;
    const res = await api('POST', '/workflows', {
      name: 'broken',
      trigger: { type: 'voice_command', config: { command: '   ' } },
      nodes: [],
      edges: [],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.validationErrors).toEqual(['trigger.config.command: must not be empty']);

    const graph = await api('POST', '/workflows', {
      name: 'broken',
      trigger: { type: 'voice_command', config: { command: 'break it' } },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'start', type: 'speak', config: { text: 'dup' } },
        { id: 'call', type: 'mcp_call', config: { serverId: 'mcp_notmine', toolName: 'x' } },
        { id: 'c', type: 'condition', config: { expression: 'call.result.ok ==' } },
        { id: 'say', type: 'speak', config: { text: '{{later.result}}' } },
        { id: 'later', type: 'speak', config: { text: 'x' } },
        { id: 'odd', type: 'hologram' },
      ],
      edges: [
        ...chain('start', 'call', 'c'),
        { sourceId: 'c', targetId: 'say', condition: 'true' },
        { sourceId: 'say', targetId: 'later', condition: 'false' },
        { sourceId: 'later', targetId: 'nowhere' },
      ],
    });
    expect(graph.status).toBe(400);
    const problems: string[] = graph.body.validationErrors;
    for (const expected of [
      'nodes[1].id: duplicate id "start"',
      'nodes[6].type: unknown node type "hologram"',
      'nodes: at least one end node is required',
      'edges[3].condition: only edges leaving a condition node carry a condition',
      'edges[4].targetId: no node "nowhere"',
      'nodes[3]: condition node "c" needs exactly one "true" and one "false" out-edge (found 1 true, 0 false)',
      'nodes[3].config.expression: cannot parse',
      'nodes[4].config.text: later.result refers to "later", which does not run before "say"',
      'nodes[2].config.serverId: no MCP server "mcp_notmine" of yours',
      'nodes[6]: "odd" is not reachable from the start node',
    ]) {
      expect(problems.some((p) => p.startsWith(expected))).toBe(true);
    }
    expect(graph.body.error).toMatch(/^The workflow definition is invalid/);

    const cycle = await api('POST', '/workflows', {
      name: 'loop',
      trigger: { type: 'manual' },
      nodes: [
        { id: 's', type: 'start' },
        { id: 'a', type: 'speak', config: { text: 'a' } },
        { id: 'b', type: 'speak', config: { text: 'b' } },
        { id: 'e', type: 'end' },
      ],
      edges: [...chain('s', 'a', 'b', 'a'), { sourceId: 'b', targetId: 'e' }],
    });
    expect(cycle.body.validationErrors).toContain('edges: cycle a → b → a');

    const unknownField = await api('POST', '/workflows', {
      ...orderGraph(),
      name: 'x',
      trigger: { type: 'manual' },
      color: 'red',
    });
    expect(unknownField.body.validationErrors).toEqual(['color: unknown field']);
    expect((await api('GET', '/workflows')).body.pagination.total).toBe(before);

    // an update that breaks the graph is refused whole
    const wf = await createWorkflow(orderGraph().nodes, orderGraph().edges);
    const broken = await api('PUT', `/workflows/${wf.id}`, { edges: [] });
    expect(broken.status).toBe(400);
    expect(broken.body.validationErrors).toEqual(
      expect.arrayContaining(['nodes[1]: "lookup" is not reachable from the start node']),
    );
    expect((await api('GET', `/workflows/${wf.id}`)).body.data.version).toBe(1);
  });
});

describe('executing', () => {
  it('takes either branch of a condition over a real MCP tool result, with the full record and events', async () => {
    const { nodes, edges } = orderGraph();
    const wf = await createWorkflow(nodes, edges);
    const vip = await api('POST', `/workflows/${wf.id}/execute`, {
      input: { orderId: 'A-7', vip: true },
      sessionId,
    });
    expect(vip.status).toBe(200);
    const record = vip.body.data;
    expect(record).toMatchObject({
      workflowId: wf.id,
      version: 1,
      status: 'completed',
      sessionId,
      input: { orderId: 'A-7', vip: true },
      error: null,
      output: {
        speech: ['Good news! Order A-7 has shipped.'],
        results: { lookup: { orderId: 'A-7', status: 'shipped' }, check: true },
      },
    });
    expect(record.id).toMatch(/^exec_/);
    expect(record.steps.map((s: { nodeId: string; status: string }) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['lookup', 'completed'],
      ['check', 'completed'],
      ['regular', 'skipped'],
      ['vip', 'completed'],
      ['end', 'completed'],
    ]);
    const lookup = record.steps[1];
    expect(lookup).toMatchObject({ type: 'mcp_call', result: { orderId: 'A-7', status: 'shipped' } });
    expect(lookup.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(lookup.completedAt)).toBeGreaterThanOrEqual(Date.parse(lookup.startedAt));
    expect(record.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(record.completedAt)).toBeGreaterThanOrEqual(Date.parse(record.startedAt));
    expect(mcp.calls).toContainEqual({ name: 'lookup_order', arguments: { orderId: 'A-7' } });

    const regular = await api('POST', `/workflows/${wf.id}/execute`, {
      input: { orderId: 'B-9', vip: false },
    });
    expect(regular.body.data.output.speech).toEqual(['Order B-9 is shipped.']);
    expect(regular.body.data.steps.find((s: { nodeId: string }) => s.nodeId === 'vip').status).toBe(
      'skipped',
    );

    const events = await eventually(async () => {
      const all = await eventsOf(record.id);
      return all.some((e) => e.type === 'workflow.completed') && all;
    });
    const types = events.map((e: { type: string }) => e.type);
    expect(types[0]).toBe('workflow.started');
    expect(types.filter((t: string) => t === 'workflow.step.completed')).toHaveLength(5);
    expect(types.filter((t: string) => t === 'workflow.completed')).toHaveLength(1);
    const completed = events.find((e: { type: string }) => e.type === 'workflow.completed');
    expect(completed.data).toMatchObject({
      workflowId: wf.id,
      executionId: record.id,
      status: 'completed',
      stepsExecuted: 5,
    });
    expect(typeof completed.data.duration).toBe('number');
    const step = events.find(
      (e: { type: string; data: { nodeId: string } }) =>
        e.type === 'workflow.step.completed' && e.data.nodeId === 'lookup',
    );
    expect(step.data).toMatchObject({ nodeId: 'lookup', nodeType: 'mcp_call', executionId: record.id });
    expect(typeof step.data.duration).toBe('number');
    expect(events[0].data).toMatchObject({
      workflowId: wf.id,
      executionId: record.id,
      version: 1,
      sessionId,
    });
  });

  it('runs independent branches concurrently and joins them', async () => {
    const wf = await createWorkflow(
      [
        { id: 'start', type: 'start' },
        { id: 'left', type: 'mcp_call', config: { serverId, toolName: 'slow' } },
        { id: 'right', type: 'mcp_call', config: { serverId, toolName: 'slow' } },
        { id: 'join', type: 'speak', config: { text: '{{left.result}} and {{right.result}}' } },
        { id: 'end', type: 'end' },
      ],
      [...chain('start', 'left', 'join', 'end'), ...chain('start', 'right', 'join')],
    );
    const res = await api('POST', `/workflows/${wf.id}/execute`, {});
    expect(res.body.data.status).toBe('completed');
    expect(res.body.data.output.speech).toEqual(['done slowly and done slowly']);
    const step = (id: string) => res.body.data.steps.find((s: { nodeId: string }) => s.nodeId === id);
    const [left, right] = [step('left'), step('right')];
    // each took ~300 ms and they overlapped: the second started before the first ended
    expect(left.durationMs).toBeGreaterThanOrEqual(290);
    expect(right.durationMs).toBeGreaterThanOrEqual(290);
    const latestStart = Math.max(Date.parse(left.startedAt), Date.parse(right.startedAt));
    const earliestEnd = Math.min(Date.parse(left.completedAt), Date.parse(right.completedAt));
    expect(latestStart).toBeLessThan(earliestEnd);
    expect(res.body.data.durationMs).toBeLessThan(left.durationMs + right.durationMs);
  });

  it('fails the execution with the node and the error when an MCP tool fails', async () => {
    const wf = await createWorkflow(
      [
        { id: 'start', type: 'start' },
        { id: 'hello', type: 'speak', config: { text: 'One moment.' } },
        { id: 'stock', type: 'mcp_call', config: { serverId, toolName: 'fails' } },
        { id: 'done', type: 'speak', config: { text: 'never said' } },
        { id: 'end', type: 'end' },
      ],
      chain('start', 'hello', 'stock', 'done', 'end'),
    );
    const res = await api('POST', `/workflows/${wf.id}/execute`, {});
    expect(res.status).toBe(200);
    const record = res.body.data;
    expect(record.status).toBe('failed');
    expect(record.error.nodeId).toBe('stock');
    expect(record.error.message).toMatch(/inventory backend unavailable/);
    expect(record.output.speech).toEqual(['One moment.']);
    expect(record.steps.map((s: { nodeId: string; status: string }) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['hello', 'completed'],
      ['stock', 'failed'],
    ]);
    const failed = await eventually(async () =>
      (await eventsOf(record.id)).find((e) => e.type === 'workflow.failed'),
    );
    expect(failed.data).toMatchObject({
      status: 'failed',
      failedNodeId: 'stock',
      executionId: record.id,
      stepsExecuted: 2,
    });
    expect(failed.data.error).toMatch(/inventory backend unavailable/);
    // the Temporal workflow failed too, so the Web UI shows it as Failed
    const described = await app.ctx.temporal.workflow.getHandle(record.id).describe();
    expect(described.status.name).toBe('FAILED');
  });

  it('renders prompts for llm_prompt nodes and speaks the completion', async () => {
    const wf = await createWorkflow(
      [
        { id: 'start', type: 'start' },
        { id: 'ask', type: 'llm_prompt', config: { prompt: 'Summarise order {{input.orderId}}' } },
        { id: 'say', type: 'speak', config: { text: '{{ask.result}}' } },
        { id: 'end', type: 'end' },
      ],
      chain('start', 'ask', 'say', 'end'),
    );
    const res = await api('POST', `/workflows/${wf.id}/execute`, { input: { orderId: 'Z-1' } });
    expect(res.body.data.output.speech).toEqual(['echo: Summarise order Z-1']);
  });

  it('answers 202 at once with wait false, then the history has the result', async () => {
    const wf = await createWorkflow(
      [
        { id: 'start', type: 'start' },
        { id: 'nap', type: 'mcp_call', config: { serverId, toolName: 'sleep_ms', arguments: { ms: 4000 } } },
        { id: 'end', type: 'end' },
      ],
      chain('start', 'nap', 'end'),
    );
    const res = await api('POST', `/workflows/${wf.id}/execute`, { wait: false });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ status: 'running', completedAt: null, output: null });
    const id = res.body.data.id;
    // while it runs, the record and the Web UI show the node running
    const running = await eventually(async () => {
      const r = await api('GET', `/workflows/${wf.id}/executions/${id}`);
      return r.body.data.currentNodes.includes('nap') && r.body.data;
    });
    expect(running.status).toBe('running');
    expect(running.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['start']);
    // the Web UI's "current details" (the workflow metadata query) names the running node
    const details = await eventually(async () => {
      const meta = await app.ctx.temporal.workflow
        .getHandle(id)
        .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return meta.currentDetails;
    });
    expect(details).toContain('`nap` (mcp_call)');

    const done = await eventually(async () => {
      const r = await api('GET', `/workflows/${wf.id}/executions/${id}`);
      return r.body.data.status === 'completed' && r.body.data;
    });
    expect(done.output.results.nap).toEqual({ slept: 4000 });

    // a short wait answers 202 with the running record
    const slow = await api('POST', `/workflows/${wf.id}/execute`, { timeoutMs: 100 });
    expect(slow.status).toBe(202);
    expect(slow.body.data.status).toBe('running');

    // the Temporal execution carries the account and definition search attributes
    const described = await app.ctx.temporal.workflow.getHandle(id).describe();
    expect(described.searchAttributes).toMatchObject({
      AccountId: [dev.publisherId],
      WorkflowDefinitionId: [wf.id],
    });
  });

  it('pins the definition version at start: an edit does not change a running execution', async () => {
    const wf = await createWorkflow(
      [
        { id: 'start', type: 'start' },
        { id: 'nap', type: 'mcp_call', config: { serverId, toolName: 'sleep_ms', arguments: { ms: 800 } } },
        { id: 'say', type: 'speak', config: { text: 'version one' } },
        { id: 'end', type: 'end' },
      ],
      chain('start', 'nap', 'say', 'end'),
    );
    const started = await api('POST', `/workflows/${wf.id}/execute`, { wait: false });
    const edited = await api('PUT', `/workflows/${wf.id}`, {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'nap', type: 'mcp_call', config: { serverId, toolName: 'sleep_ms', arguments: { ms: 1 } } },
        { id: 'say', type: 'speak', config: { text: 'version two' } },
        { id: 'end', type: 'end' },
      ],
    });
    expect(edited.body.data.version).toBe(2);
    const first = await eventually(async () => {
      const r = await api('GET', `/workflows/${wf.id}/executions/${started.body.data.id}`);
      return r.body.data.status === 'completed' && r.body.data;
    });
    expect(first).toMatchObject({ version: 1, output: { speech: ['version one'] } });
    const second = await api('POST', `/workflows/${wf.id}/execute`, {});
    expect(second.body.data).toMatchObject({ version: 2, output: { speech: ['version two'] } });
  });

  it('keeps a paginated history with a status filter; other accounts get 404', async () => {
    const wf = await createWorkflow(
      [
        { id: 'start', type: 'start' },
        { id: 'c', type: 'condition', config: { expression: 'input.fail == true' } },
        { id: 'bad', type: 'mcp_call', config: { serverId, toolName: 'fails' } },
        { id: 'end', type: 'end' },
      ],
      [
        { sourceId: 'start', targetId: 'c' },
        { sourceId: 'c', targetId: 'bad', condition: 'true' },
        { sourceId: 'c', targetId: 'end', condition: 'false' },
        { sourceId: 'bad', targetId: 'end' },
      ],
    );
    const ids: string[] = [];
    for (const fail of [false, true, false]) {
      ids.push((await api('POST', `/workflows/${wf.id}/execute`, { input: { fail } })).body.data.id);
    }
    const all = await api('GET', `/workflows/${wf.id}/executions`);
    expect(all.body.pagination).toEqual({ total: 3, limit: 50, offset: 0 });
    expect(all.body.data.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
    const failed = await api('GET', `/workflows/${wf.id}/executions?status=failed`);
    expect(failed.body.data.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
    const page = await api('GET', `/workflows/${wf.id}/executions?limit=1&offset=1`);
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
    expect((await api('GET', `/workflows/${wf.id}/executions?status=weird`)).status).toBe(400);

    const one = await api('GET', `/workflows/${wf.id}/executions/${ids[0]}`);
    expect(one.body.data).toMatchObject({ id: ids[0], status: 'completed', workflowId: wf.id });
    const other = await newDeveloper(app, 'other');
    expect((await api('GET', `/workflows/${wf.id}/executions`, undefined, other.liveKey)).status).toBe(404);
    expect(
      (await api('GET', `/workflows/${wf.id}/executions/${ids[0]}`, undefined, other.liveKey)).status,
    ).toBe(404);
    expect((await api('GET', `/workflows/${wf.id}/executions/exec_nope`)).status).toBe(404);
  });
});

describe('dry run', () => {
  it('runs the same interpreter with mocks: no calls, no events, no history', async () => {
    const { nodes, edges } = orderGraph();
    const wf = await createWorkflow(nodes, edges);
    const callsBefore = mcp.calls.length;
    const res = await api('POST', `/workflows/${wf.id}/test`, {
      input: { orderId: 'M-1', vip: true },
      mocks: { lookup: { orderId: 'M-1', status: 'delayed' } },
    });
    expect(res.status).toBe(200);
    const trace = res.body.data;
    expect(trace).toMatchObject({
      dryRun: true,
      workflowId: wf.id,
      version: 1,
      status: 'completed',
      output: { speech: ['Order M-1 is delayed.'] },
      warnings: [],
      error: null,
    });
    expect(trace.steps.find((s: { nodeId: string }) => s.nodeId === 'lookup')).toMatchObject({
      mocked: true,
      result: { status: 'delayed' },
    });
    expect(trace.steps.find((s: { nodeId: string }) => s.nodeId === 'vip').status).toBe('skipped');
    expect(mcp.calls.length).toBe(callsBefore);

    const unmocked = await api('POST', `/workflows/${wf.id}/test`, { input: { orderId: 'M-2' } });
    expect(unmocked.body.data.warnings).toEqual(['lookup: mcp_call node without a mock; its result is null']);
    expect(unmocked.body.data.output.speech).toEqual(['Order M-2 is .']);

    expect((await api('GET', `/workflows/${wf.id}/executions`)).body.pagination.total).toBe(0);
    const rows = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from events where payload like ?`, [`%${wf.id}%`]);
    expect(rows[0].n).toBe(0);

    const badMocks = await api('POST', `/workflows/${wf.id}/test`, { mocks: { ghost: 1, check: true } });
    expect(badMocks.status).toBe(400);
    expect(badMocks.body.validationErrors).toEqual([
      'mocks.ghost: no node "ghost"',
      'mocks.check: only mcp_call and llm_prompt nodes take mocks (this is condition)',
    ]);
  });

  it('answers the validation errors when the stored definition is no longer valid', async () => {
    const extra = await api('POST', '/mcp-servers', { name: 'temp', transport: 'http', endpoint: mcp.url });
    const wf = await createWorkflow(
      [
        { id: 'start', type: 'start' },
        { id: 'call', type: 'mcp_call', config: { serverId: extra.body.data.id, toolName: 'add' } },
        { id: 'end', type: 'end' },
      ],
      chain('start', 'call', 'end'),
    );
    await api('DELETE', `/mcp-servers/${extra.body.data.id}`);
    const res = await api('POST', `/workflows/${wf.id}/test`, {});
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toEqual([
      `nodes[1].config.serverId: no MCP server "${extra.body.data.id}" of yours`,
    ]);
  });
});

describe('voice trigger', () => {
  it('runs the best match, 404 with candidates on a miss, 409 on a tie', async () => {
    const trigger = await newDeveloper(app, 'voice');
    const tapi = (body: unknown) => api('POST', '/workflows/trigger', body, trigger.liveKey);
    const speakOnly = (text: string) => ({
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'say', type: 'speak', config: { text } },
        { id: 'end', type: 'end' },
      ],
      edges: chain('start', 'say', 'end'),
    });
    const make = async (name: string, command: string, text: string) =>
      (
        await api(
          'POST',
          '/workflows',
          { name, trigger: { type: 'voice_command', config: { command } }, ...speakOnly(text) },
          trigger.liveKey,
        )
      ).body.data;
    const status = await make('Order status', 'check my order status', 'Checking order {{input.orderId}}');
    await make('Opening hours', 'what are your opening hours', 'We open at nine');

    const hit = await tapi({
      utterance: 'Hey, can you check the status of my orders please?',
      input: { orderId: 'Q-1' },
    });
    expect(hit.status).toBe(200);
    expect(hit.body.data).toMatchObject({
      workflowId: status.id,
      status: 'completed',
      output: { speech: ['Checking order Q-1'] },
      match: { workflowName: 'Order status', command: 'check my order status' },
    });
    expect(hit.body.data.match.score).toBeGreaterThanOrEqual(0.5);
    const history = await api('GET', `/workflows/${status.id}/executions`, undefined, trigger.liveKey);
    expect(history.body.data[0].match).toMatchObject({ command: 'check my order status' });

    const miss = await tapi({ utterance: 'tell me a joke about penguins' });
    expect(miss.status).toBe(404);
    expect(miss.body.code).toBe('NOT_FOUND');
    expect(miss.body.candidates.map((c: { name: string }) => c.name).sort()).toEqual([
      'Opening hours',
      'Order status',
    ]);
    expect(miss.body.candidates[0]).toEqual(
      expect.objectContaining({ workflowId: expect.any(String), score: expect.any(Number) }),
    );

    await make('Order status (copy)', 'Check my order status!', 'copy');
    const tie = await tapi({ utterance: 'check my order status' });
    expect(tie.status).toBe(409);
    expect(tie.body.code).toBe('CONFLICT');
    expect(tie.body.candidates.map((c: { name: string }) => c.name).sort()).toEqual([
      'Order status',
      'Order status (copy)',
    ]);
    expect(tie.body.error).toMatch(/Order status/);

    expect((await tapi({ utterance: '' })).status).toBe(400);
  });
});

describe('eager start', () => {
  it('starts executions eagerly on the worker of the same process (npm start)', async () => {
    const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false, listen: false });
    try {
      const eager = app.ctx.temporalEager;
      expect(eager).toBeDefined();
      const start = jest.spyOn(eager!.workflow, 'start');
      const { nodes, edges } = orderGraph();
      const wf = await createWorkflow(nodes, edges);
      const res = await api('POST', `/workflows/${wf.id}/execute`, { input: { orderId: 'E-1', vip: true } });
      expect(res.body.data).toMatchObject({
        status: 'completed',
        output: { speech: ['Good news! Order E-1 has shipped.'] },
      });
      expect(start).toHaveBeenCalledTimes(1);
      expect(start.mock.calls[0][1]).toMatchObject({ requestEagerStart: true, workflowId: res.body.data.id });
      const handle = await start.mock.results[0].value;
      expect(handle.eagerlyStarted).toBe(true);
    } finally {
      await worker.stop();
    }
    expect(app.ctx.temporalEager).toBeUndefined();
  }, 60_000);
});
