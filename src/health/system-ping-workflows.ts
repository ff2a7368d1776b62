import type { Client } from '@temporalio/client';
import type { systemPingWorkflow } from '../../workflows/system-ping';
import { newId } from '../common/ids';

/**
 * Runs the system ping workflow on the task queue (GET /readyz?deep=true): a worker polls it and
 * answers. A fresh id each time; it times out after 10 s with no worker.
 */
export function runSystemPingWorkflow(temporal: Client, taskQueue: string) {
  return temporal.workflow.execute<typeof systemPingWorkflow>('systemPingWorkflow', {
    taskQueue,
    workflowId: `system-ping-${newId('req', 16)}`,
    args: [{ requestedAt: new Date().toISOString() }],
    workflowExecutionTimeout: '10 seconds',
  });
}
