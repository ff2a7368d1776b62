import type { WorkflowHandle } from '@temporalio/client';
import type { Receiver } from '../support/receiver';
import { call, type Developer, type TestApp } from '../support/test-app';
import type { ScenarioName } from './histories';

/**
 * A recovery of two events missed while the receiver answered 503, paged one event per batch and
 * two batches per run: the first run queues both and continues as new, the last finds nothing more
 * and completes. Recorded from the run's app and worker (the deliveries queue).
 */
export async function recordRecovery(
  app: TestApp,
  dev: Developer,
  receiver: Receiver,
  record: (name: ScenarioName, handle: WorkflowHandle) => Promise<void>,
): Promise<void> {
  const api = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
  const since = new Date(Date.now() - 1000);
  receiver.respond([], 503);
  const hook = (
    await api('POST', '/webhooks', { name: 'outage', url: receiver.url, events: ['workflow.failed'] })
  ).body.data as { id: string };
  for (let i = 0; i < 2; i++) await api('POST', '/events/trigger', { type: 'workflow.failed' });
  const knex = app.ctx.orm.em.fork().getConnection();
  for (let settled = false; !settled; await new Promise((r) => setTimeout(r, 500))) {
    const rows = await knex.execute<{ status: string }[]>(
      `select status from deliveries where webhook_id = ?`,
      [hook.id],
    );
    settled = rows.length === 2 && rows.every((r) => r.status === 'failed');
  }
  receiver.respond([], 200);
  const id = `wrc_histories${Date.now()}`;
  await knex.execute(
    `insert into webhook_recoveries (id, account_id, environment, webhook_id, status, since, until, workflow_started_at, created_at, updated_at)
     values (?, ?, 'test', ?, 'running', ?, now(), now(), now(), now())`,
    [id, dev.publisherId, hook.id, since],
  );
  const handle = await app.ctx.temporal.workflow.start('recoverWebhookEventsWorkflow', {
    workflowId: id,
    taskQueue: app.ctx.config.temporal.taskQueues.deliveries,
    args: [{ recoveryId: id, batchSize: 1, batchesPerRun: 2 }],
  });
  const result = await handle.result();
  if (result.status !== 'completed' || result.total !== 2)
    throw new Error(`recovery: ${JSON.stringify(result)}`);
  await record(
    'recover-webhook-events-continued',
    app.ctx.temporal.workflow.getHandle(id, handle.firstExecutionRunId),
  );
  await record('recover-webhook-events-completed', app.ctx.temporal.workflow.getHandle(id));
}
