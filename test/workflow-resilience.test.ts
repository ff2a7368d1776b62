import type { ChildProcess } from 'node:child_process';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { eventually } from './support/receiver';
import { spawnWorker, startOutageRig, stopProcess, workerProcessEnv } from './support/resilience';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

async function rows(app: TestApp, sql: string, params: unknown[] = []) {
  return app.ctx.orm.em.fork().getConnection().execute(sql, params);
}

const api = (app: TestApp, dev: Developer, method: string, urlPath: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${urlPath}`, { token: dev.liveKey, body });

/** A workflow whose middle node sleeps `ms` in the MCP server, then speaks. */
async function napWorkflow(app: TestApp, dev: Developer, mcp: McpTestServer, ms: number) {
  const server = await api(app, dev, 'POST', '/mcp-servers', {
    name: 'orders',
    transport: 'http',
    endpoint: mcp.url,
  });
  expect(server.status).toBe(201);
  const wf = await api(app, dev, 'POST', '/workflows', {
    name: 'nap',
    trigger: { type: 'manual' },
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'nap',
        type: 'mcp_call',
        config: { serverId: server.body.data.id, toolName: 'sleep_ms', arguments: { ms } },
      },
      { id: 'say', type: 'speak', config: { text: 'slept {{nap.result.slept}}' } },
      { id: 'end', type: 'end' },
    ],
    edges: [
      { sourceId: 'start', targetId: 'nap' },
      { sourceId: 'nap', targetId: 'say' },
      { sourceId: 'say', targetId: 'end' },
    ],
  });
  expect(wf.status).toBe(201);
  return wf.body.data.id as string;
}

async function eventTypes(app: TestApp, executionId: string): Promise<string[]> {
  const found = await rows(app, 'select type from events where payload like ? order by created_at', [
    `%${executionId}%`,
  ]);
  return found.map((r) => String(r.type));
}

describe('a worker killed mid-execution', () => {
  it('a new worker completes the execution, and it completes once', async () => {
    const db = await createIsolatedDatabase('wfkill');
    const queue = `vp-wfkill-${process.pid}`;
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
      TEMPORAL_TASK_QUEUE: queue,
    };
    const app = await startTestApp({ ...env, RATE_LIMITS: 'off' });
    const mcp = await startMcpTestServer();
    const workerEnv = workerProcessEnv(env, 'wfkill');
    let first: ChildProcess | undefined = spawnWorker(workerEnv);
    let second: ChildProcess | undefined;
    try {
      const dev = await newDeveloper(app);
      const wfId = await napWorkflow(app, dev, mcp, 3_000);
      const started = await api(app, dev, 'POST', `/workflows/${wfId}/execute`, { wait: false });
      expect(started.status).toBe(202);
      const executionId = started.body.data.id as string;
      // the first worker is inside the nap node when it dies
      await eventually(async () => mcp.calls.some((c) => c.name === 'sleep_ms'), 60_000);
      await stopProcess(first, 'SIGKILL');
      first = undefined;

      second = spawnWorker(workerEnv);
      const done = await eventually(async () => {
        const r = await api(app, dev, 'GET', `/workflows/${wfId}/executions/${executionId}`);
        return r.body.data.status !== 'running' && r.body.data;
      }, 90_000);
      expect(done).toMatchObject({ status: 'completed', output: { speech: ['slept 3000'] } });
      expect(done.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['start', 'nap', 'say', 'end']);
      const result = await app.ctx.temporal.workflow.getHandle(executionId).result();
      expect(result.status).toBe('completed');

      await new Promise((r) => setTimeout(r, 1_000));
      const types = await eventTypes(app, executionId);
      expect(types.filter((t) => t === 'workflow.started')).toHaveLength(1);
      expect(types.filter((t) => t === 'workflow.completed')).toHaveLength(1);
      expect(types.filter((t) => t === 'workflow.step.completed')).toHaveLength(4);
      const history = await api(app, dev, 'GET', `/workflows/${wfId}/executions`);
      expect(history.body.pagination.total).toBe(1);
    } finally {
      await stopProcess(first, 'SIGKILL');
      await stopProcess(second, 'SIGTERM');
      await mcp.close();
      await app.close();
      await db.drop();
    }
  }, 180_000);
});

describe('a Temporal outage', () => {
  it('an execution acknowledged while Temporal is down runs once Temporal is back', async () => {
    const rig = await startOutageRig('wfoutage', { RATE_LIMITS: 'off' });
    const { app } = rig;
    const mcp = await startMcpTestServer();
    try {
      const stopWorker = await rig.runWorker();
      const dev = await newDeveloper(app);
      const wfId = await napWorkflow(app, dev, mcp, 1);
      const before = await api(app, dev, 'POST', `/workflows/${wfId}/execute`, {});
      expect(before.body.data.status).toBe('completed');

      await stopWorker();
      await rig.stopTemporal();
      const during = await api(app, dev, 'POST', `/workflows/${wfId}/execute`, { timeoutMs: 2_000 });
      expect(during.status).toBe(202); // acknowledged: committed, to be started
      expect(during.body.data.status).toBe('running');
      const id = during.body.data.id as string;
      expect(await eventTypes(app, id)).toEqual(['workflow.started']);

      await rig.startTemporal();
      await rig.runWorker();
      const done = await eventually(async () => {
        const r = await api(app, dev, 'GET', `/workflows/${wfId}/executions/${id}`);
        return r.body.data.status === 'completed' && r.body.data;
      }, 90_000);
      expect(done.output.speech).toEqual(['slept 1']);
      await new Promise((r) => setTimeout(r, 1_000));
      const types = await eventTypes(app, id);
      expect(types.filter((t) => t === 'workflow.completed')).toHaveLength(1);
    } finally {
      await mcp.close();
      await rig.close();
    }
  }, 180_000);
});
