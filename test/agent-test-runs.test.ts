import { TestScenario } from '../src/agent-tests/agent-test.entity';
import { recordScenarioResult } from '../src/agent-tests/run-results';
import { newTestRun } from '../src/agent-tests/run-rows';
import { startWorker } from '../src/app/runtime';
import { testRunWorkflow } from '../workflows/test-run';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { type LlmRequest, startLlmDouble } from './support/llm-double';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

const CONSOLE = '/api/v1/developers';
const PLATFORM = '/api/v2/developers';

/** The agent's model: a question about an order calls the order tool, then answers from its result. */
function agentAnswer(req: LlmRequest) {
  const toolAnswer = req.messages.find((m) => m.role === 'tool');
  if (toolAnswer)
    return { content: `Your order is ${JSON.parse(toolAnswer.content ?? '{}').result?.status}.` };
  if (/order/i.test(req.messages.at(-1)?.content ?? ''))
    return { tool_calls: [{ id: 'call_1', name: 'orders__lookup_order', arguments: { orderId: 'A-1' } }] };
  return { content: 'Happy to help.' };
}

/** Which role a request to the double plays: the simulated caller, the judge, or the agent. */
const roleOf = (req: LlmRequest) => {
  const system = req.messages[0]?.content ?? '';
  if (system.startsWith('You are a caller')) return 'caller';
  if (system.startsWith("You grade a voice agent's conversation")) return 'judge';
  return 'agent';
};

describe('agent test runs', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: LlmDouble;
  let mcp: McpTestServer;
  let dev: Developer;
  let other: Developer;
  let personaId: string;
  const api = (method: string, path: string, body?: unknown, token = dev.token) =>
    call(app.baseUrl, method, CONSOLE + path, { token, body });
  const platform = (method: string, path: string, key: string, body?: unknown) =>
    call(app.baseUrl, method, PLATFORM + path, { token: key, body });
  const scenario = async (body: unknown) => {
    const created = await api('POST', `/personas/${personaId}/tests`, body);
    expect(created.status).toBe(201);
    return created.body.scenario.id as string;
  };
  const runOf = async (scenarios: string[], wait = true) => {
    const started = await api('POST', `/personas/${personaId}/test-runs${wait ? '?wait=true' : ''}`, {
      scenarios,
    });
    expect(started.status).toBe(wait ? 200 : 202);
    return started.body.run;
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    mcp = await startMcpTestServer();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-agent-tests-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'runs');
    other = await newDeveloper(app, 'runs-other');
    const server = await platform('POST', '/mcp-servers', dev.testKey, { name: 'orders', endpoint: mcp.url });
    expect(server.status).toBe(201);
    // the agent is offered the orders server's tools (docs/personas.md "Tools")
    const manifest = {
      ...completeManifest('runs-ava'),
      tools: [{ type: 'mcp_server', id: server.body.data.id }],
    };
    personaId = (await api('POST', '/personas', { manifest })).body.persona.id;
  }, 120_000);
  afterAll(async () => {
    await worker.stop();
    await app.close();
    await llm.close();
    await mcp.close();
  });
  beforeEach(() => llm.script(agentAnswer));

  it('runs scripted turns through real test sessions: mocks answer instead of the tool, every kind passes', async () => {
    const id = await scenario({
      name: 'order status',
      turns: [
        {
          text: 'Where is my order A-1?',
          expect: [
            { type: 'toolCalled', name: 'orders__lookup_order', arguments: { orderId: 'A-1' } },
            { type: 'route', route: 'llm' },
            { type: 'replyContains', text: 'in the van' },
            { type: 'replyMatches', pattern: 'order is \\w+', flags: 'i' },
            { type: 'maxLatencyMs', ms: 60_000 },
          ],
        },
        { text: 'Thanks!', expect: [{ type: 'toolNotCalled', name: 'orders__lookup_order' }] },
      ],
      mocks: { orders__lookup_order: { status: 'in the van' } },
      expectations: [{ type: 'replyContains', text: 'happy to help' }],
    });
    const run = await runOf([id]);
    expect(run).toMatchObject({ status: 'passed', passed: 1, failed: 0, total: 1, personaVersion: null });
    expect(run.id).toMatch(/^testrun_/);
    const [result] = run.scenarios;
    expect(result).toMatchObject({ scenarioId: id, name: 'order status', status: 'passed', error: null });
    expect(result.verdicts).toHaveLength(7);
    expect(result.verdicts.every((v: { passed: boolean; reason: string }) => v.passed && v.reason)).toBe(
      true,
    );
    expect(result.transcript.map((t: { reply: string }) => t.reply)).toEqual([
      'Your order is in the van.',
      'Happy to help.',
    ]);
    expect(result.transcript[0].toolCalls).toEqual([
      { name: 'orders__lookup_order', arguments: { orderId: 'A-1' }, success: true, mocked: true },
    ]);
    expect(result.latencies.turnsMs).toHaveLength(2);
    expect(mcp.calls).toEqual([]); // the mock answered: the real tool was not called
    // a real session in the test environment, ended
    const session = await platform('GET', `/sessions/${result.sessionId}`, dev.testKey);
    expect(session.body.data).toMatchObject({ status: 'ended', personaId, turnCount: 2 });
    expect((await api('GET', `/test-runs/${run.id}`)).body.run).toEqual(run);
    const [event] = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select environment, persona_id, payload from events where type = 'test_run.completed' and payload like ?`,
        [`%${run.id}%`],
      );
    expect(event).toMatchObject({ environment: 'test', persona_id: personaId });
    expect(JSON.parse(event.payload).data).toEqual({
      runId: run.id,
      personaId,
      personaVersion: null,
      status: 'passed',
      passed: 1,
      failed: 0,
      total: 1,
      durationMs: expect.any(Number),
    });
  }, 120_000);

  it('fails each kind with its reason, and an unmocked tool runs in the test environment', async () => {
    const id = await scenario({
      name: 'failing',
      turns: [
        {
          text: 'Where is my order A-1?',
          expect: [
            { type: 'toolCalled', name: 'orders__lookup_order', arguments: { orderId: 'B-2' } },
            { type: 'toolNotCalled', name: 'orders__lookup_order' },
            { type: 'route', route: 'workflow' },
            { type: 'replyContains', text: 'cancelled' },
            { type: 'replyMatches', pattern: '^Sorry' },
            { type: 'refused' },
            { type: 'maxLatencyMs', ms: 1 },
          ],
        },
      ],
      expectations: [{ type: 'toolCalled', name: 'orders__cancel_order' }],
    });
    const run = await runOf([id]);
    expect(run).toMatchObject({ status: 'failed', passed: 0, failed: 1 });
    const [result] = run.scenarios;
    expect(result.status).toBe('failed');
    expect(result.verdicts.map((v: { passed: boolean }) => v.passed)).toEqual(Array(8).fill(false));
    expect(result.verdicts[0].reason).toContain('not with {"orderId":"B-2"}');
    expect(result.verdicts[7]).toMatchObject({ turn: null, reason: expect.stringContaining('not called') });
    expect(result.transcript[0].toolCalls[0]).toMatchObject({ name: 'orders__lookup_order', mocked: false });
    expect(mcp.calls).toEqual([{ name: 'lookup_order', arguments: { orderId: 'A-1' } }]);
    mcp.calls.length = 0;
  }, 120_000);

  it('plays a simulated caller toward its goal and grades the transcript with a judge (scripted double)', async () => {
    const callerLines = ['Hi, where is my order A-1?', '[END]'];
    let callerTurns = 0;
    llm.script((req) => {
      const role = roleOf(req);
      if (role === 'caller') return { content: callerLines[callerTurns++] };
      if (role === 'judge') {
        const transcript = req.messages[1].content ?? '';
        return /in the van/.test(transcript)
          ? { content: JSON.stringify({ passed: true, reason: 'The agent gave the order status.' }) }
          : { content: JSON.stringify({ passed: false, reason: 'No status given.' }) };
      }
      return agentAnswer(req);
    });
    const passing = await scenario({
      name: 'simulated',
      simulatedCaller: { goal: 'Find out where order A-1 is', maxTurns: 5 },
      mocks: { orders__lookup_order: { status: 'in the van' } },
      expectations: [
        { type: 'judge', rubric: 'The agent tells the caller the status of their order' },
        { type: 'toolCalled', name: 'orders__lookup_order' },
      ],
    });
    const run = await runOf([passing]);
    expect(run.status).toBe('passed');
    const [result] = run.scenarios;
    expect(result.transcript.map((t: { text: string }) => t.text)).toEqual(['Hi, where is my order A-1?']);
    expect(result.verdicts[0]).toMatchObject({
      turn: null,
      expectation: { type: 'judge' },
      passed: true,
      reason: 'The agent gave the order status.',
    });
    const judged = llm.requests.find((r) => roleOf(r) === 'judge');
    expect(judged.temperature).toBe(0);
    expect(judged.messages[1].content).toContain(
      'Rubric: The agent tells the caller the status of their order',
    );
    expect(llm.requests.filter((r) => roleOf(r) === 'caller')).toHaveLength(2);
  }, 120_000);

  it('fails a judge that says so, and one whose answer is off its schema', async () => {
    let judgeCalls = 0;
    llm.script((req) => {
      if (roleOf(req) !== 'judge') return agentAnswer(req);
      judgeCalls++;
      return judgeCalls === 1
        ? { content: JSON.stringify({ passed: false, reason: 'The agent never greeted the caller.' }) }
        : { content: JSON.stringify({ verdict: 'yes' }) };
    });
    const id = await scenario({
      name: 'judged',
      turns: [{ text: 'hello' }],
      expectations: [
        { type: 'judge', rubric: 'The agent greets the caller' },
        { type: 'judge', rubric: 'The agent is polite' },
      ],
    });
    const run = await runOf([id]);
    expect(run.status).toBe('failed');
    const [first, second] = run.scenarios[0].verdicts;
    expect(first).toMatchObject({ passed: false, reason: 'The agent never greeted the caller.' });
    expect(second.passed).toBe(false);
    expect(second.reason).toMatch(/does not match its schema/);
  }, 120_000);

  it('cancels a run: its workflow stops, its session ends and the run is recorded cancelled', async () => {
    llm.script((req) =>
      roleOf(req) === 'agent' ? { content: 'Let me think.', delayMs: 3_000 } : agentAnswer(req),
    );
    const id = await scenario({
      name: 'slow',
      turns: [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }],
    });
    const run = await runOf([id], false);
    expect(run.status).toBe('running');
    await eventually(async () => llm.requests.length >= 1, 30_000);
    const cancelled = await api('POST', `/test-runs/${run.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.run.status).toBe('cancelled');
    const handle = app.ctx.temporal.workflow.getHandle(run.id);
    await eventually(async () => (await handle.describe()).status.name === 'CANCELLED', 30_000);
    const sessions = await platform(
      'GET',
      `/sessions?personaId=${personaId}&userId=${run.id}/${id}&includeTestRuns=true`,
      dev.testKey,
    );
    await eventually(async () => {
      const s = await platform('GET', `/sessions/${sessions.body.data[0].id}`, dev.testKey);
      return s.body.data.status === 'ended';
    }, 30_000);
    const events = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select payload from events where type = 'test_run.completed' and payload like ?`, [
        `%${run.id}%`,
      ]);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).data).toMatchObject({ status: 'cancelled', total: 1 });
    // cancelling again answers the run as it is
    expect((await api('POST', `/test-runs/${run.id}/cancel`)).body.run.status).toBe('cancelled');
    // a scenario that ends after its run was cancelled (it hears of the cancel late) keeps no result
    const late = await recordScenarioResult(app.ctx, {
      runId: run.id,
      scenarioId: id,
      sessionId: sessions.body.data[0].id,
      transcript: [],
      grades: {},
      error: null,
    });
    expect(late).toMatchObject({ scenarioId: id, status: 'passed' });
    const kept = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select count(*)::int as n from test_run_results where run_id = ?', [run.id]);
    expect(kept[0].n).toBe(0);
  }, 120_000);

  it('runs a frozen persona version when asked, its sessions pinned to it', async () => {
    await api('POST', `/personas/${personaId}/submit`);
    // the review runs the persona's suite first (test/review-gate.test.ts); the operator decides after
    await eventually(async () => {
      const tests = (await api('GET', `/personas/${personaId}`)).body.persona.pendingReview?.tests;
      return tests && tests.status !== 'running';
    }, 60_000);
    const decided = await call(app.baseUrl, 'POST', `/api/admin/personas/${personaId}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(decided.body.persona.status).toBe('published');
    const id = await scenario({ name: 'versioned', turns: [{ text: 'hello' }] });
    const started = await api('POST', `/personas/${personaId}/test-runs?wait=true`, {
      version: 1,
      scenarios: [id],
    });
    expect(started.body.run).toMatchObject({ status: 'passed', personaVersion: 1 });
    const session = await platform(
      'GET',
      `/sessions/${started.body.run.scenarios[0].sessionId}`,
      dev.testKey,
    );
    expect(session.body.data.personaVersion).toBe(1);
    const missing = await api('POST', `/personas/${personaId}/test-runs`, { version: 99, scenarios: [id] });
    expect(missing.status).toBe(400);
    expect(missing.body.validationErrors).toEqual([`version: persona ${personaId} has no version 99`]);
  }, 120_000);

  it('answers a CI job on the platform API: ?wait=true with tests:run, reads with tests:read', async () => {
    const id = await scenario({
      name: 'ci',
      turns: [{ text: 'hello', expect: [{ type: 'route', route: 'llm' }] }],
    });
    const started = await platform('POST', `/personas/${personaId}/test-runs?wait=true`, dev.liveKey, {
      scenarios: [id],
    });
    expect(started.status).toBe(200);
    expect(started.body.success).toBe(true);
    expect(started.body.data).toMatchObject({ status: 'passed', passed: 1, total: 1 });
    const read = await platform('GET', `/test-runs/${started.body.data.id}`, dev.testKey);
    expect(read.body.data.status).toBe('passed');
    const listed = await platform('GET', `/personas/${personaId}/test-runs`, dev.testKey);
    expect(listed.body.data[0].id).toBe(started.body.data.id);

    const readOnly = await api('POST', '/keys', {
      name: 'ci-read',
      environment: 'test',
      scopes: ['tests:read'],
    });
    const key = readOnly.body.key.fullKey;
    const refused = await platform('POST', `/personas/${personaId}/test-runs`, key, { scenarios: [id] });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('tests:run');
    expect((await platform('GET', `/test-runs/${started.body.data.id}`, key)).status).toBe(200);
    const none = await api('POST', '/keys', {
      name: 'ci-none',
      environment: 'test',
      scopes: ['sessions:read'],
    });
    expect((await platform('GET', `/test-runs/${started.body.data.id}`, none.body.key.fullKey)).status).toBe(
      403,
    );
  }, 120_000);

  it("answers 404 for another account's persona or run on every route", async () => {
    const id = await scenario({ name: 'mine', turns: [{ text: 'hello' }] });
    const run = await runOf([id]);
    const theirs = other.token;
    expect((await api('POST', `/personas/${personaId}/test-runs`, {}, theirs)).status).toBe(404);
    expect((await api('GET', `/personas/${personaId}/test-runs`, undefined, theirs)).status).toBe(404);
    expect((await api('GET', `/test-runs/${run.id}`, undefined, theirs)).status).toBe(404);
    expect((await api('POST', `/test-runs/${run.id}/cancel`, undefined, theirs)).status).toBe(404);
    expect((await platform('POST', `/personas/${personaId}/test-runs`, other.testKey, {})).status).toBe(404);
    expect((await platform('GET', `/personas/${personaId}/test-runs`, other.testKey)).status).toBe(404);
    expect((await platform('GET', `/test-runs/${run.id}`, other.testKey)).status).toBe(404);
    expect((await platform('POST', `/test-runs/${run.id}/cancel`, other.testKey)).status).toBe(404);
    expect((await api('GET', '/test-runs/testrun_nope')).status).toBe(404);
  }, 120_000);

  it('refuses bad input on every run route', async () => {
    const id = await scenario({ name: 'input', turns: [{ text: 'hello' }] });
    const bad = async (res: Promise<{ status: number; body: any }>, status = 400) => {
      const answer = await res;
      expect(answer.status).toBe(status);
      return answer.body;
    };
    const start = (body: unknown, query = '') =>
      api('POST', `/personas/${personaId}/test-runs${query}`, body);
    expect((await bad(start({ version: 500 }))).validationErrors[0]).toMatch(/^version:/);
    expect((await bad(start({ scenarios: ['tsc_unknown'] }))).validationErrors[0]).toMatch(/tsc_unknown/);
    await bad(start({ scenarios: [] }));
    await bad(start({ scenarios: [id], extra: true }));
    await bad(start({ version: 0 }));
    await bad(start({}, '?wait=maybe'));
    await bad(start({}, '?wait=true&x=1'));
    await bad(api('GET', `/personas/${personaId}/test-runs?x=1`));
    await bad(api('GET', `/personas/${personaId}/test-runs?limit=0`));
    await bad(platform('POST', `/personas/${personaId}/test-runs`, dev.testKey, { scenarios: 'all' }));
    await bad(platform('GET', `/personas/${personaId}/test-runs?limit=1000`, dev.testKey));
    const empty = (await api('POST', '/personas', { manifest: completeManifest('runs-empty') })).body.persona
      .id;
    expect((await bad(api('POST', `/personas/${empty}/test-runs`, {}), 409)).error).toMatch(
      /no test scenarios/,
    );
  }, 120_000);

  it('a run cancelled before its workflow began ends at once, running no scenario', async () => {
    const id = await scenario({ name: 'never run', turns: [{ text: 'hello' }] });
    // a run as a review's gate makes it (started by its creator, not the outbox), cancelled before it starts
    const em = app.ctx.orm.em.fork();
    const scenarios = await em.find(TestScenario, { id });
    const run = newTestRun(em, {
      accountId: dev.publisherId,
      personaId,
      version: null,
      scenarios,
      workflowStartedAt: new Date(),
    });
    await em.flush();
    expect((await api('POST', `/test-runs/${run.id}/cancel`)).body.run.status).toBe('cancelled');
    const outcome = await app.ctx.temporal.workflow.execute(testRunWorkflow, {
      workflowId: run.id,
      taskQueue: app.ctx.config.temporal.taskQueues.background,
      args: [{ runId: run.id, accountId: dev.publisherId, personaId, scenarioIds: [id], concurrency: 4 }],
    });
    expect(outcome).toEqual({ status: 'cancelled', passed: 0, failed: 1 }); // a scenario not run counts as failed
    await expect(app.ctx.temporal.workflow.getHandle(`${run.id}-${id}`).describe()).rejects.toThrow(
      /not found/i,
    );
    expect((await api('GET', `/test-runs/${run.id}`)).body.run).toMatchObject({ status: 'cancelled' });
  });
});
