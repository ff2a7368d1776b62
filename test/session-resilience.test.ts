import type { ChildProcess } from 'node:child_process';
import { TOOL_OUTCOME_UNKNOWN } from '../src/sessions/agent-tools';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { startLlmDouble } from './support/llm-double';
import { startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { spawnWorker, stopProcess, workerProcessEnv } from './support/resilience';
import { call, newDeveloper, startTestApp } from './support/test-app';
import { openStream } from './support/voice-stream';

/**
 * An app on its own database and task queue, with the LLM double and a real MCP server, its turns
 * run by a worker process: `killWorker` SIGKILLs it and starts the next one. It starts a session
 * and hands it to the scenario, then stops everything.
 */
async function withKillableWorker(
  label: string,
  scenario: (s: {
    id: string;
    api: (method: string, path: string, body?: unknown) => ReturnType<typeof call<any>>;
    llm: Awaited<ReturnType<typeof startLlmDouble>>;
    mcp: Awaited<ReturnType<typeof startMcpTestServer>>;
    app: Awaited<ReturnType<typeof startTestApp>>;
    killWorker: () => Promise<void>;
    key: string;
  }) => Promise<void>,
): Promise<void> {
  const db = await createIsolatedDatabase(label);
  const llm = await startLlmDouble();
  const mcp = await startMcpTestServer();
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
    TEMPORAL_TASK_QUEUE: `vp-${label}-${process.pid}`,
    LLM_BASE_URL: llm.baseUrl,
  };
  const app = await startTestApp({ ...env, RATE_LIMITS: 'off' });
  const workerEnv = workerProcessEnv(env, label);
  let first: ChildProcess | undefined = spawnWorker(workerEnv);
  let second: ChildProcess | undefined;
  try {
    const dev = await newDeveloper(app);
    const api = (method: string, path: string, body?: unknown) =>
      call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
    const server = await api('POST', '/mcp-servers', { name: 'orders', endpoint: mcp.url });
    expect(server.status).toBe(201);
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: {
        manifest: {
          ...completeManifest(`${label}-agent`),
          tools: [{ type: 'mcp_server', id: server.body.data.id }],
        },
      },
    });
    const started = await api('POST', '/sessions', { personaId: persona.body.persona.id, userId: 'caller' });
    expect(started.status).toBe(201);
    const killWorker = async () => {
      await stopProcess(first, 'SIGKILL');
      first = undefined;
      second = spawnWorker(workerEnv);
    };
    await scenario({ id: started.body.data.id as string, api, llm, mcp, app, killWorker, key: dev.testKey });
  } finally {
    await stopProcess(first, 'SIGKILL');
    await stopProcess(second, 'SIGTERM');
    await app.close();
    await llm.close();
    await mcp.close();
    await db.drop();
  }
}

describe('a worker killed while a turn waits for the model', () => {
  it('the turn is recorded once, by another worker, and the session goes on', async () => {
    await withKillableWorker('sesskill', async ({ id, api, llm, app, killWorker }) => {
      // the model answers from the API; the worker that would record the turn dies meanwhile
      llm.script(() => ({ content: 'Hello again!', delayMs: 1500 }));
      const turn = api('POST', `/sessions/${id}/turns`, { text: 'hello' });
      await eventually(async () => llm.requests.length === 1, 60_000);
      await killWorker();

      const answered = await turn;
      expect(answered.status).toBe(200);
      expect(answered.body.data).toMatchObject({ index: 1, reply: { text: 'Hello again!' }, error: null });
      expect(llm.requests).toHaveLength(1);
      const rows = await app.ctx.orm.em
        .fork()
        .getConnection()
        .execute('select index, reply from session_turns where session_id = ?', [id]);
      expect(rows).toEqual([{ index: 1, reply: 'Hello again!' }]);

      llm.script(undefined);
      const next = await api('POST', `/sessions/${id}/turns`, { text: 'still there?' });
      expect(next.body.data).toMatchObject({ index: 2, reply: { text: 'echo: still there?' } });
      expect((await api('GET', `/sessions/${id}`)).body.data).toMatchObject({
        status: 'active',
        turnCount: 2,
      });
    });
  }, 180_000);
});

describe('a worker killed during a tool call', () => {
  it('the tool ran once (never again), the turn is recorded once and answered once', async () => {
    await withKillableWorker('sesstool', async ({ id, api, llm, mcp, app, killWorker }) => {
      llm.script((req, i) => {
        if (i === 0)
          return { tool_calls: [{ id: 'call_1', name: 'orders__sleep_ms', arguments: { ms: 4000 } }] };
        const tool = req.messages.find((m) => m.role === 'tool');
        return { content: `The tool said: ${tool?.content}` };
      });
      const turn = api('POST', `/sessions/${id}/turns`, { text: 'Take your time' });
      await eventually(async () => mcp.calls.some((c) => c.name === 'sleep_ms'), 60_000);
      await killWorker();

      const answered = await turn;
      expect(answered.status).toBe(200);
      // the next worker ran the round's step again: it found the call started and did not call again
      expect(mcp.calls.filter((c) => c.name === 'sleep_ms')).toHaveLength(1);
      expect(answered.body.data).toMatchObject({
        index: 1,
        route: 'llm',
        actions: [{ tool: 'orders__sleep_ms', success: false, error: TOOL_OUTCOME_UNKNOWN }],
      });
      // the model heard that the outcome is unknown, and answered once more
      expect(llm.requests).toHaveLength(2);
      expect(JSON.stringify(llm.requests[1].messages)).toContain('outcome is unknown');
      const db = app.ctx.orm.em.fork().getConnection();
      expect(await db.execute('select index from session_turns where session_id = ?', [id])).toEqual([
        { index: 1 },
      ]);
      expect((await api('GET', `/sessions/${id}`)).body.data.transcript).toHaveLength(1);
    });
  }, 180_000);
});

describe('a live stream, with the API and the worker in separate processes', () => {
  it('streams a turn; the worker SIGKILLed during its tool call: the tool ran once, the turn is recorded once, turn.recorded comes once', async () => {
    await withKillableWorker('streamkill', async ({ id, llm, mcp, app, killWorker, key }) => {
      const client = await openStream(app.baseUrl, id, { key });
      await client.next('session.ready');
      // a turn without tools first: the stream works across the processes
      llm.script(() => ({ content: 'Hello from the other side.', tokenDelayMs: 5 }));
      client.sendText('hello');
      expect((await client.next('turn.recorded')).turn).toMatchObject({
        index: 1,
        reply: { text: 'Hello from the other side.' },
      });
      llm.script((req, i) => {
        if (i === 0)
          return { tool_calls: [{ id: 'call_1', name: 'orders__sleep_ms', arguments: { ms: 4000 } }] };
        const tool = req.messages.find((m) => m.role === 'tool');
        return { content: `The tool said: ${tool?.content}` };
      });
      client.sendText('Take your time');
      await client.next('tool.started');
      await eventually(async () => mcp.calls.some((c) => c.name === 'sleep_ms'), 60_000);
      await killWorker();

      const recorded = await client.next('turn.recorded', undefined, 120_000);
      expect(recorded.turn).toMatchObject({
        index: 2,
        actions: [{ tool: 'orders__sleep_ms', success: false, error: TOOL_OUTCOME_UNKNOWN }],
      });
      expect(client.received.find((m) => m.type === 'tool.finished')).toMatchObject({
        callId: 'call_1',
        success: false,
      });
      expect(mcp.calls.filter((c) => c.name === 'sleep_ms')).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 500));
      expect(client.received.filter((m) => m.type === 'turn.recorded')).toHaveLength(2);
      const db = app.ctx.orm.em.fork().getConnection();
      expect(
        await db.execute('select index from session_turns where session_id = ? order by index', [id]),
      ).toEqual([{ index: 1 }, { index: 2 }]);
      client.close();
    });
  }, 180_000);
});
