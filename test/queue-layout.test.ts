import { startWorker } from '../src/app/runtime';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { speakWorkflow } from './support/speak-workflow';
import { call, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * The shared layout (`TEMPORAL_QUEUE_LAYOUT=shared`, docs/operations.md "Worker pools"): every
 * workload on the one queue `<TEMPORAL_TASK_QUEUE>`, served by one worker with every workflow and
 * activity, as before the pools (a small deployment's, and bench:cluster's contrast).
 */
describe('every workload on one shared queue', () => {
  let app: TestApp;
  let stopWorker: () => Promise<void>;
  const prefix = `vp-shared-${process.pid}`;

  beforeAll(async () => {
    app = await startTestApp({
      TEMPORAL_TASK_QUEUE: prefix,
      TEMPORAL_QUEUE_LAYOUT: 'shared',
      RATE_LIMITS: 'off',
    });
    stopWorker = (await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false })).stop;
  });
  afterAll(async () => {
    await stopWorker?.();
    await app?.close();
  });

  it('runs a session turn, a voice-workflow execution and the health ping, all on the one queue', async () => {
    expect(Object.values(app.ctx.config.temporal.taskQueues)).toEqual([prefix, prefix, prefix, prefix]);
    const ready = await call(app.baseUrl, 'GET', '/readyz?deep=true', { token: TEST_ADMIN_TOKEN });
    expect(ready.body.checks.worker).toBe('ok');
    const dev = await newDeveloper(app, 'shared');
    const api = (method: string, path: string, body?: unknown) =>
      call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('shared-agent') },
    });
    const session = await api('POST', '/sessions', { personaId: persona.body.persona.id, userId: 'caller' });
    const turn = await api('POST', `/sessions/${session.body.data.id}/turns`, { text: 'One queue for all' });
    expect(turn.status).toBe(200);
    const { workflowExecutionInfo: info } = (
      await app.ctx.temporal.workflow.getHandle(session.body.data.id).describe()
    ).raw;
    expect(info?.taskQueue).toBe(prefix);
    const wf = await api('POST', '/workflows', speakWorkflow('shared', 'On the shared queue'));
    const run = await api('POST', `/workflows/${wf.body.data.id}/execute`, {});
    const done = await eventually(async () => {
      const r = await api('GET', `/workflows/${wf.body.data.id}/executions/${run.body.data.id}`);
      return r.body.data?.status === 'completed' && r.body.data;
    });
    expect(done.output.speech).toEqual(['On the shared queue']);
  });
});
