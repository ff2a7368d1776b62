import type { Connection } from '@temporalio/client';
import { startWorker } from '../src/app/runtime';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { call, startTestApp, type TestApp } from './support/test-app';

describe('Temporal wiring', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('a real workflow round trip through the worker and the database (/readyz?deep=true)', async () => {
    const res = await call(app.baseUrl, 'GET', '/readyz?deep=true', { token: TEST_ADMIN_TOKEN });
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok', worker: 'ok' } });
    const executions = app.ctx.temporal.workflow.list({ query: "WorkflowType = 'systemPingWorkflow'" });
    const found = [];
    for await (const execution of executions) found.push(execution);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0].taskQueue).toBe(app.ctx.config.temporal.taskQueues.background);
  });

  it('the project search attributes are registered on the dev server', async () => {
    const connection = app.ctx.temporal.connection as Connection;
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: 'default',
    });
    expect(Object.keys(customAttributes ?? {})).toEqual(
      expect.arrayContaining(['AccountId', 'WebhookId', 'EventType', 'WorkflowDefinitionId']),
    );
  });

  it("a session workflow answers the Web UI's Call Stack (the SDK's stack traces stay on)", async () => {
    const own = await startTestApp({ TEMPORAL_TASK_QUEUE: `vp-stacks-${process.pid}` });
    const worker = await startWorker(own.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    try {
      const handle = await own.ctx.temporal.workflow.start('voiceSessionWorkflow', {
        taskQueue: own.ctx.config.temporal.taskQueues.conversations,
        workflowId: `sess_stacks_${Date.now()}`,
        args: [{ sessionId: 'sess_none', idleTimeoutMs: 60_000, turnsPerRun: 100 }],
      });
      try {
        expect(await handle.query<string>('__stack_trace')).toContain('workflows/voice-session.ts');
      } finally {
        await handle.terminate();
      }
    } finally {
      await worker.stop();
      await own.close();
    }
  }, 120_000);

  it('/readyz answers 503 naming the check when a worker round trip cannot complete', async () => {
    const lonely = await startTestApp({ TEMPORAL_TASK_QUEUE: 'nobody-polls-this-queue' });
    try {
      const res = await call(lonely.baseUrl, 'GET', '/readyz?deep=true', { token: TEST_ADMIN_TOKEN });
      expect(res.status).toBe(503);
      expect(res.body.checks).toMatchObject({
        database: 'ok',
        temporal: 'ok',
        worker: expect.stringMatching(/^error/),
      });
    } finally {
      await lonely.close();
    }
  });
});
