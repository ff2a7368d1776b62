import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { runVoiceWorkflow } from '../../workflows/run-voice-workflow';
import type { Config } from '../config/env';
import { AccountIdKey, WorkflowDefinitionIdKey } from '../temporal/search-attributes';
import type { RunVoiceWorkflowInput } from './execution-types';

const WORKFLOW_TASK_TIMEOUT = '2 seconds';

/**
 * Starts an execution's Temporal workflow (workflow id = `exec_…` id, duplicates rejected even after
 * it closed, so a repeated start never runs it twice). Search attributes: account and definition.
 */
export async function startExecutionWorkflow(
  temporal: Client,
  config: Config,
  input: RunVoiceWorkflowInput,
  opts: { eager?: boolean } = {},
) {
  try {
    return await temporal.workflow.start<typeof runVoiceWorkflow>('runVoiceWorkflow', {
      workflowId: input.executionId,
      requestEagerStart: opts.eager,
      taskQueue: config.temporal.taskQueues.executions,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // Nodes run as local activities inside one workflow task; the worker reports progress (and
      // answers queries such as the Web UI's current details) every 80% of this timeout, and a task
      // lost with a killed worker is retried elsewhere after it.
      workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
      typedSearchAttributes: [
        { key: AccountIdKey, value: input.accountId },
        { key: WorkflowDefinitionIdKey, value: input.workflowId },
      ],
      memo: { version: input.version, ...(input.sessionId ? { sessionId: input.sessionId } : {}) },
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      return temporal.workflow.getHandle<typeof runVoiceWorkflow>(input.executionId);
    }
    throw error;
  }
}
