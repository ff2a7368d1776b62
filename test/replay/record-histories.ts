/**
 * `npm run histories:record`: re-records the workflow histories that test/replay/ replays.
 *
 * Only for a change that is meant to be incompatible AND whose old histories can no longer exist in
 * production (every run of the old code has finished and no one will replay it). Otherwise version
 * the change with patched() / deprecatePatch() and keep the old histories (docs/architecture.md,
 * "Changing a running workflow").
 *
 * Starts what the scenarios need, like the test global setup does: a Temporal dev server on free
 * ports, an isolated PostgreSQL database, a test app with a real worker, a real MCP server and a
 * webhook receiver. Then it runs each scenario, waits for its workflow to close, fetches its history
 * and writes it to test/histories/<scenario>.json (proto JSON, worker identities replaced by a
 * fixed name, formatted by Biome), and stops everything.
 */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { startWorker } from '../../src/app/runtime';
import { signDevToken } from '../../src/auth/dev-idp';
import { startAnalysisWorkflow } from '../../src/call-analysis/analysis-workflows';
import { derivedId } from '../../src/common/ids';
import { createLogger } from '../../src/logging/logger';
import { startTemporalDevServer } from '../../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { reviewStateQuery, sessionStateQuery } from '../../workflows/messages';
import { TEST_ADMIN_TOKEN } from '../support/env';
import { createIsolatedDatabase } from '../support/isolated-db';
import { orderDeskModel, startLlmDouble } from '../support/llm-double';
import { startMcpTestServer } from '../support/mcp-test-server';
import { completeManifest } from '../support/personas';
import { startReceiver } from '../support/receiver';
import { call, newDeveloper, setPlan, startTestApp } from '../support/test-app';
import { HISTORIES_DIR, historyToJson, SCENARIOS, type ScenarioName } from './histories';
import { recordCampaign, recordCarriedCampaign } from './record-campaign';
import { recordKnowledge } from './record-knowledge';
import { recordPhoneCall } from './record-phone-call';
import { recordRecovery } from './record-recovery';

type Node = { id: string; type: string; config?: Record<string, unknown> };
type Edge = { sourceId: string; targetId: string; condition?: string };

const chain = (...ids: string[]): Edge[] => ids.slice(1).map((id, i) => ({ sourceId: ids[i], targetId: id }));

/** The graphs of the three runVoiceWorkflow scenarios (the same shapes test/workflows.test.ts runs). */
type GraphScenario = Extract<ScenarioName, `run-voice-workflow-${string}`>;

function graphs(serverId: string): Record<GraphScenario, [Node[], Edge[]]> {
  return {
    'run-voice-workflow-condition': [
      [
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
        {
          id: 'vip',
          type: 'speak',
          config: { text: 'Good news! Order {{lookup.result.orderId}} has shipped.' },
        },
        {
          id: 'regular',
          type: 'speak',
          config: { text: 'Order {{input.orderId}} is {{lookup.result.status}}.' },
        },
        { id: 'end', type: 'end' },
      ],
      [
        ...chain('start', 'lookup', 'check'),
        { sourceId: 'check', targetId: 'vip', condition: 'true' },
        { sourceId: 'check', targetId: 'regular', condition: 'false' },
        { sourceId: 'vip', targetId: 'end' },
        { sourceId: 'regular', targetId: 'end' },
      ],
    ],
    'run-voice-workflow-parallel-join': [
      [
        { id: 'start', type: 'start' },
        { id: 'left', type: 'mcp_call', config: { serverId, toolName: 'slow' } },
        { id: 'right', type: 'mcp_call', config: { serverId, toolName: 'slow' } },
        { id: 'join', type: 'speak', config: { text: '{{left.result}} and {{right.result}}' } },
        { id: 'end', type: 'end' },
      ],
      [...chain('start', 'left', 'join', 'end'), ...chain('start', 'right', 'join')],
    ],
    'run-voice-workflow-failing-node': [
      [
        { id: 'start', type: 'start' },
        { id: 'hello', type: 'speak', config: { text: 'One moment.' } },
        { id: 'stock', type: 'mcp_call', config: { serverId, toolName: 'fails' } },
        { id: 'done', type: 'speak', config: { text: 'never said' } },
        { id: 'end', type: 'end' },
      ],
      chain('start', 'hello', 'stock', 'done', 'end'),
    ],
  };
}

/** What each voice-workflow scenario must have produced (so a broken run is never recorded). */
const EXPECTED_STATUS: Record<string, string> = {
  'run-voice-workflow-condition': 'completed',
  'run-voice-workflow-parallel-join': 'completed',
  'run-voice-workflow-failing-node': 'failed',
};

/** Proto JSON of the closed workflow's history, with worker identities (host, pid) made fixed. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function historyOf(handle: WorkflowHandle): Promise<string> {
  await handle.result().catch(() => undefined); // the failing-node scenario fails the workflow
  const json = JSON.stringify(historyToJson(await handle.fetchHistory()));
  const stable = JSON.parse(json, (key, value) => (key === 'identity' ? 'histories-recorder' : value));
  return `${JSON.stringify(stable, null, 2)}\n`;
}

async function main(): Promise<void> {
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'error', 'histories');
  const stops: (() => Promise<unknown>)[] = [];
  const written: string[] = [];
  try {
    const temporal = await startTemporalDevServer({
      logger,
      namespace: 'default',
      searchAttributes: SEARCH_ATTRIBUTES,
    });
    stops.push(() => temporal.stop());
    const db = await createIsolatedDatabase('hist');
    stops.push(() => db.drop());
    // startTestApp reads these, as it does from the global setup in a jest run
    Object.assign(process.env, {
      VP_TEST_DATABASE_URL: db.url,
      VP_TEST_TEMPORAL_ADDRESS: temporal.address,
      VP_TEST_TASK_QUEUE: 'vp-histories',
    });
    // reviews fall due after 1 s, so the persona scenario records the overdue timer firing; removed
    // marketplace items' grace period is 2 s
    const app = await startTestApp({
      RATE_LIMITS: 'off',
      REVIEW_SLA_SECONDS: '1',
      MARKETPLACE_REMOVAL_GRACE_SECONDS: '2',
    });
    stops.push(() => app.close());
    const worker = await startWorker(app.ctx, temporal.address);
    stops.push(() => worker.stop());
    const mcp = await startMcpTestServer();
    stops.push(() => mcp.close());
    const receiver = await startReceiver();
    stops.push(() => receiver.close());
    const dev = await newDeveloper(app, 'histories');
    await setPlan(app, dev.publisherId, 'enterprise');

    const api = async (method: string, urlPath: string, body: unknown, key: string, status: number[]) => {
      const res = await call(app.baseUrl, method, `/api/v2/developers${urlPath}`, { token: key, body });
      if (!status.includes(res.status))
        throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    };
    // `npm run histories:record -- <scenario>…` writes only those (every scenario still runs)
    const only = process.argv.slice(2);
    const record = async (name: ScenarioName, handle: WorkflowHandle) => {
      if (only.length > 0 && !only.includes(name)) return;
      const file = path.join(HISTORIES_DIR, `${name}.json`);
      fs.writeFileSync(file, await historyOf(handle));
      written.push(file);
      console.log(
        `recorded ${SCENARIOS[name]} (${handle.workflowId}) → ${path.relative(process.cwd(), file)}`,
      );
    };
    fs.mkdirSync(HISTORIES_DIR, { recursive: true });

    const server = await api(
      'POST',
      '/mcp-servers',
      { name: 'orders', transport: 'http', endpoint: mcp.url },
      dev.liveKey,
      [201],
    );
    for (const [name, [nodes, edges]] of Object.entries(graphs(server.id)) as [
      ScenarioName,
      [Node[], Edge[]],
    ][]) {
      const wf = await api(
        'POST',
        '/workflows',
        { name, trigger: { type: 'manual', config: {} }, nodes, edges },
        dev.liveKey,
        [201],
      );
      const input = name === 'run-voice-workflow-condition' ? { orderId: 'A-7', vip: true } : {};
      const execution = await api('POST', `/workflows/${wf.id}/execute`, { input }, dev.liveKey, [200]);
      if (execution.status !== EXPECTED_STATUS[name]) {
        throw new Error(`${name}: execution ${execution.status}: ${JSON.stringify(execution)}`);
      }
      await record(name, app.ctx.temporal.workflow.getHandle(execution.id));
    }

    // a delivery whose first attempt gets a 500 and whose retry (after a 1 s timer) succeeds
    receiver.respond([500]);
    await api(
      'POST',
      '/webhooks',
      { name: 'hook', url: receiver.url, events: ['tool.called'] },
      dev.testKey,
      [201],
    );
    await api('POST', '/events/trigger', { type: 'tool.called' }, dev.testKey, [200, 201, 202]);
    const [first] = await receiver.waitFor(2);
    const deliveryId = String(first.headers['x-service-delivery-id']);
    const delivery = app.ctx.temporal.workflow.getHandle(deliveryId);
    const outcome = await delivery.result();
    if (outcome.status !== 'delivered' || outcome.attempts !== 2) {
      throw new Error(`delivery: ${JSON.stringify(outcome)}`);
    }
    await record('deliver-webhook-retry', delivery);
    await recordRecovery(app, dev, receiver, record);

    // persona reviews: one overdue (its timer fires) and then approved; one withdrawn (cancelled)
    const consoleApi = async (method: string, urlPath: string, body?: unknown) => {
      const res = await call(app.baseUrl, method, `/api/v1/developers${urlPath}`, { token: dev.token, body });
      if (res.status >= 300)
        throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const submitted = async (slug: string) => {
      const { persona } = await consoleApi('POST', '/personas', { manifest: completeManifest(slug) });
      await consoleApi('POST', `/personas/${persona.id}/submit`);
      const handle = app.ctx.temporal.workflow.getHandle(`review-${persona.id}-1`);
      for (let i = 0; i < 100 && !(await handle.describe().catch(() => undefined)); i++) await sleep(100);
      return { id: persona.id as string, handle };
    };
    const overdue = await submitted('history-overdue');
    for (let i = 0; i < 100; i++) {
      if ((await overdue.handle.query(reviewStateQuery)).overdue) break;
      await sleep(100);
    }
    const decided = await call(app.baseUrl, 'POST', `/api/admin/personas/${overdue.id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve', notes: 'ok' },
    });
    if (decided.body.persona?.status !== 'published')
      throw new Error(`review: ${JSON.stringify(decided.body)}`);
    await record('review-persona-overdue-approved', overdue.handle);
    const withdrawn = await submitted('history-withdrawn');
    await consoleApi('DELETE', `/personas/${withdrawn.id}`);
    await record('review-persona-withdrawn', withdrawn.handle);

    // marketplace: a review whose automated checks connect to the MCP server, then approved; a
    // removal whose grace timer fires (installations removed); one restored within the grace period
    const publisher = { 'x-publisher-id': 'pub_histories', 'x-publisher-name': 'Histories' };
    const market = async (
      method: string,
      urlPath: string,
      body?: unknown,
      headers: Record<string, string> = publisher,
    ) => {
      const res = await call(app.baseUrl, method, `/api/marketplace${urlPath}`, { headers, body });
      if (res.status !== 200)
        throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const publishTool = async (id: string) => {
      const submitted = await market('POST', '/publisher/submit', {
        type: 'tool',
        manifest: {
          id,
          name: id,
          version: '1.0.0',
          publisher: { id: 'pub_histories', name: 'Histories' },
          description: { short: 'Adds numbers', long: 'Adds two numbers.' },
          execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcp.url, toolName: 'add' },
          interface: { llmDescription: 'Adds a and b' },
        },
      });
      const decision = await call(app.baseUrl, 'POST', `/api/admin/marketplace/items/${id}/review`, {
        token: TEST_ADMIN_TOKEN,
        body: { decision: 'approve' },
      });
      if (decision.body.item?.status !== 'approved')
        throw new Error(`review: ${JSON.stringify(decision.body)}`);
      await market('POST', '/install/tool', { toolId: id }, { 'x-user-id': 'usr_histories' });
      return app.ctx.temporal.workflow.getHandle(submitted.reviewId);
    };
    await record('review-marketplace-item-checked-approved', await publishTool('history-tool'));
    const removal = await market('DELETE', '/publisher/history-tool');
    const removed = app.ctx.temporal.workflow.getHandle(removal.removalId);
    if ((await removed.result()).status !== 'removed') throw new Error('removal did not complete');
    await record('remove-marketplace-item-removed', removed);
    await publishTool('history-restored');
    const restoring = await market('DELETE', '/publisher/history-restored');
    await sleep(300); // the workflow is waiting on its timer
    await market('POST', '/publisher/history-restored/restore');
    await record(
      'remove-marketplace-item-restored',
      app.ctx.temporal.workflow.getHandle(restoring.removalId),
    );

    // a voice session (no LLM here): a speak-only voice command (run by the API, recorded by a `turn`
    // update), a command with a tool step (a `command` update runs it step by step, then `turn`), a turn
    // the agent answers with the commands it knows, then the end
    const testServer = await api(
      'POST',
      '/mcp-servers',
      { name: 'orders', transport: 'http', endpoint: mcp.url },
      dev.testKey,
      [201],
    );
    await api(
      'POST',
      '/workflows',
      {
        name: 'Order status',
        trigger: { type: 'voice_command', config: { command: 'check order status' } },
        nodes: [
          { id: 'start', type: 'start' },
          {
            id: 'lookup',
            type: 'mcp_call',
            config: { serverId: testServer.id, toolName: 'lookup_order', arguments: { orderId: 'B-7' } },
          },
          { id: 'say', type: 'speak', config: { text: 'Order {{lookup.result.orderId}} is shipped.' } },
          { id: 'end', type: 'end' },
        ],
        edges: chain('start', 'lookup', 'say', 'end'),
      },
      dev.testKey,
      [201],
    );
    await api(
      'POST',
      '/workflows',
      {
        name: 'Opening hours',
        trigger: { type: 'voice_command', config: { command: 'what are your opening hours' } },
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'say', type: 'speak', config: { text: 'Nine to five.' } },
          { id: 'end', type: 'end' },
        ],
        edges: chain('start', 'say', 'end'),
      },
      dev.testKey,
      [201],
    );
    const { persona: sessionPersona } = await consoleApi('POST', '/personas', {
      manifest: completeManifest('history-session'),
    });
    const session = await api(
      'POST',
      '/sessions',
      { personaId: sessionPersona.id, userId: 'caller' },
      dev.testKey,
      [201],
    );
    const hours = await api(
      'POST',
      `/sessions/${session.id}/turns`,
      { text: 'What are your opening hours?' },
      dev.testKey,
      [200],
    );
    const order = await api(
      'POST',
      `/sessions/${session.id}/turns`,
      { text: 'Check order status please' },
      dev.testKey,
      [200],
    );
    const other = await api(
      'POST',
      `/sessions/${session.id}/turns`,
      { text: 'tell me a joke' },
      dev.testKey,
      [200],
    );
    if (
      hours.route !== 'workflow' ||
      order.actions[0]?.status !== 'completed' ||
      other.route !== 'fallback'
    ) {
      throw new Error(`session: ${JSON.stringify([hours, order, other])}`);
    }
    await api('POST', `/sessions/${session.id}/end`, undefined, dev.testKey, [200]);
    await record('voice-session-command-fallback-end', app.ctx.temporal.workflow.getHandle(session.id));

    // a voice session with a model (the LLM double), served by an app and worker of their own on
    // another task queue (LLM_BASE_URL set): the speak-only command, an answer without a tool, and a
    // question about an order that makes the model call the MCP tool (a `tools` update) and answer
    // from its result; each turn recorded by a `turn` update; then the end.
    const llm = await startLlmDouble();
    stops.push(() => llm.close());
    llm.script(orderDeskModel('Hello! How can I help?'));
    const llmApp = await startTestApp({
      RATE_LIMITS: 'off',
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: 'vp-histories-llm',
    });
    stops.push(() => llmApp.close());
    const llmWorker = await startWorker(llmApp.ctx, temporal.address);
    stops.push(() => llmWorker.stop());
    const llmApi = async (method: string, urlPath: string, body?: unknown) => {
      const res = await call(llmApp.baseUrl, method, `/api/v2/developers${urlPath}`, {
        token: dev.testKey,
        body,
      });
      if (res.status >= 300)
        throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    };
    const orders = await llmApi('POST', '/mcp-servers', { name: 'orders', endpoint: mcp.url });
    // agents are offered the tools their persona names (docs/personas.md "Tools")
    const { persona: llmPersona } = await consoleApi('POST', '/personas', {
      manifest: {
        ...completeManifest('history-llm-session'),
        tools: [{ type: 'mcp_server', id: orders.id }],
      },
    });
    const planned = await llmApi('POST', '/sessions', { personaId: llmPersona.id, userId: 'caller-llm' });
    const turns = [];
    for (const text of ['What are your opening hours?', 'Hello there', 'Where is my order A-1?']) {
      turns.push(await llmApi('POST', `/sessions/${planned.id}/turns`, { text }));
    }
    if (
      turns.map((t) => t.route).join() !== 'workflow,llm,llm' ||
      turns[2].reply.text !== 'Your order is shipped.' ||
      turns[2].actions[0]?.success !== true
    ) {
      throw new Error(`model session: ${JSON.stringify(turns)}`);
    }
    await llmApi('POST', `/sessions/${planned.id}/end`);
    await record('voice-session-model-turns', llmApp.ctx.temporal.workflow.getHandle(planned.id));

    // a post-call analysis of that session whose first answer fails the data schema and whose second
    // passes. Its row is written here already marked started (so neither app's dispatcher starts it
    // on a queue without the model) and its workflow is started on the model app's queue.
    const analysisId = derivedId('ana', planned.id);
    await llmApp.ctx.orm.em
      .getConnection()
      .getKnex()('session_analyses')
      .insert({
        id: analysisId,
        account_id: dev.publisherId,
        environment: 'test',
        session_id: planned.id,
        persona_id: sessionPersona.id,
        setting: JSON.stringify({
          summary: true,
          dataSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
        }),
        status: 'pending',
        created_at: new Date(),
        workflow_started_at: new Date(),
      });
    llm.script((req) => ({
      content: JSON.stringify({
        summary: 'The caller asked about order A-1; it has shipped.',
        data: req.messages.length > 2 ? { orderId: 'A-1' } : {},
      }),
    }));
    const analysis = await startAnalysisWorkflow(llmApp.ctx.temporal, llmApp.ctx.config, {
      id: analysisId,
      accountId: dev.publisherId,
      personaId: sessionPersona.id,
      sessionId: planned.id,
    });
    const analysed = await analysis.result();
    if (analysed.status !== 'completed' || analysed.attempts !== 2)
      throw new Error(`analysis: ${JSON.stringify(analysed)}`);
    await record('analyze-session-retried-completed', analysis);

    // a test run of one scenario: a scripted turn whose tool is mocked, then a judge (the scenario's
    // child workflow is recorded too)
    const desk = orderDeskModel('Hello! How can I help?');
    llm.script((req) =>
      (req.messages[0]?.content ?? '').startsWith("You grade a voice agent's conversation")
        ? { content: JSON.stringify({ passed: true, reason: 'The order status was given.' }) }
        : desk(req),
    );
    const { scenario } = await consoleApi('POST', `/personas/${sessionPersona.id}/tests`, {
      name: 'order status',
      turns: [
        { text: 'Where is my order A-1?', expect: [{ type: 'toolCalled', name: 'orders__lookup_order' }] },
      ],
      mocks: { orders__lookup_order: { status: 'shipped' } },
      expectations: [{ type: 'judge', rubric: 'The agent tells the caller the order status' }],
    });
    const started = await call(
      llmApp.baseUrl,
      'POST',
      `/api/v1/developers/personas/${sessionPersona.id}/test-runs?wait=true`,
      {
        token: await signDevToken(llmApp.dataDir, dev.email),
        body: { scenarios: [scenario.id] },
      },
    );
    if (started.body.run?.status !== 'passed') throw new Error(`test run: ${JSON.stringify(started.body)}`);
    const runId = started.body.run.id as string;
    // the run, recorded under both names: re-record test-run-passed only once no execution from
    // before the test-run-checks-ended patch can be replayed
    await record('test-run-passed', llmApp.ctx.temporal.workflow.getHandle(runId));
    await record('test-run-checks-ended', llmApp.ctx.temporal.workflow.getHandle(runId));
    await record('test-run-local-steps', llmApp.ctx.temporal.workflow.getHandle(runId));
    // the scenario's child, recorded under both names: re-record test-scenario-mocked-judged only
    // once no execution from before the local-records patch can be replayed
    const child = llmApp.ctx.temporal.workflow.getHandle(`${runId}-${scenario.id}`);
    await record('test-scenario-mocked-judged', child);
    await record('test-scenario-local-records', child);
    await record('test-scenario-local-steps', child);
    await recordGatedReviews(llmApp, await signDevToken(llmApp.dataDir, dev.email), record);
    await recordHeldTurns(
      { temporalAddress: temporal.address, llm, key: dev.testKey, personaId: sessionPersona.id },
      record,
      stops,
    );
    await recordPhoneCall(record, stops);
    await recordCampaign(record, stops);
    await recordCarriedCampaign(record, stops);
    await recordKnowledge(record, stops);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error('stop failed:', error));
  }
  // the form Biome keeps (npm run lint checks these files too)
  execFileSync(path.resolve(__dirname, '../../node_modules/.bin/biome'), ['format', '--write', ...written], {
    stdio: 'inherit',
  });
}

/**
 * Two persona reviews gated on their tests (the model answers the order desk's greeting): one whose
 * suite passes and the operator then approves; one whose suite fails with `requirePassingTests` on,
 * rejected at once (the setting is turned off again after).
 */
async function recordGatedReviews(
  app: Awaited<ReturnType<typeof startTestApp>>,
  token: string,
  record: (name: ScenarioName, handle: WorkflowHandle) => Promise<void>,
): Promise<void> {
  const v1 = async (method: string, urlPath: string, body?: unknown) => {
    const res = await call(app.baseUrl, method, `/api/v1/developers${urlPath}`, { token, body });
    if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const submitted = async (slug: string, expected: string) => {
    const { persona } = await v1('POST', '/personas', { manifest: completeManifest(slug) });
    await v1('POST', `/personas/${persona.id}/tests`, {
      name: 'greets',
      turns: [{ text: 'Hello', expect: [{ type: 'replyContains', text: expected }] }],
    });
    await v1('POST', `/personas/${persona.id}/submit`);
    return {
      id: persona.id as string,
      handle: app.ctx.temporal.workflow.getHandle(`review-${persona.id}-1`),
    };
  };
  const tested = await submitted('history-gated', 'how can I help');
  for (let i = 0; i < 300; i++) {
    const { persona } = await v1('GET', `/personas/${tested.id}`);
    if (persona.pendingReview?.tests && persona.pendingReview.tests.status !== 'running') break;
    await sleep(100);
  }
  const decided = await call(app.baseUrl, 'POST', `/api/admin/personas/${tested.id}/review`, {
    token: TEST_ADMIN_TOKEN,
    body: { decision: 'approve' },
  });
  if (decided.body.persona?.review?.tests?.status !== 'passed')
    throw new Error(`gated review: ${JSON.stringify(decided.body)}`);
  await record('review-persona-tested-approved', tested.handle);

  await v1('PATCH', '/settings', { requirePassingTests: true });
  const failing = await submitted('history-gate-failed', 'a refund');
  const outcome = await failing.handle.result();
  await v1('PATCH', '/settings', { requirePassingTests: false });
  if (outcome.status !== 'rejected') throw new Error(`gated rejection: ${JSON.stringify(outcome)}`);
  await record('review-persona-tests-failed-rejected', failing.handle);
}

/**
 * A session whose idle timeout (1 s) fires under its turns: a model turn slower than it (the timer
 * waits on the turn's lease, `turnLease`), then `end` sent while a second slow turn is under way (the
 * end waits for that turn's record). Served by an app and worker of their own (their idle timeout).
 */
async function recordHeldTurns(
  setup: {
    temporalAddress: string;
    llm: Awaited<ReturnType<typeof startLlmDouble>>;
    key: string;
    personaId: string;
  },
  record: (name: ScenarioName, handle: WorkflowHandle) => Promise<void>,
  stops: (() => Promise<unknown>)[],
): Promise<void> {
  const app = await startTestApp({
    RATE_LIMITS: 'off',
    LLM_BASE_URL: setup.llm.baseUrl,
    SESSION_IDLE_TIMEOUT_S: '1',
    TEMPORAL_TASK_QUEUE: 'vp-histories-idle',
  });
  stops.push(() => app.close());
  const worker = await startWorker(app.ctx, setup.temporalAddress);
  stops.push(() => worker.stop());
  const v2 = async (method: string, urlPath: string, body?: unknown) => {
    const res = await call(app.baseUrl, method, `/api/v2/developers${urlPath}`, { token: setup.key, body });
    if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  setup.llm.script(() => ({ content: 'That took a while.', delayMs: 2_000 }));
  const session = await v2('POST', '/sessions', { personaId: setup.personaId, userId: 'caller-slow' });
  const handle = app.ctx.temporal.workflow.getHandle(session.id);
  const first = await v2('POST', `/sessions/${session.id}/turns`, { text: 'Take your time' });
  const second = v2('POST', `/sessions/${session.id}/turns`, { text: 'And another thing' });
  for (let i = 0; i < 100 && (await handle.query(sessionStateQuery)).turnsUnderWay.length === 0; i++)
    await sleep(20);
  const ended = await v2('POST', `/sessions/${session.id}/end`);
  const answered = await second;
  if (first.index !== 1 || answered.index !== 2 || ended.turnCount !== 2)
    throw new Error(`held turns: ${JSON.stringify([first, answered, ended])}`);
  await record('voice-session-turn-held', handle);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
