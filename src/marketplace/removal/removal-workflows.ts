import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Config } from '../../config/env';
import { AccountIdKey } from '../../temporal/search-attributes';
import type { RemovalWorkflow, RemovalWorkflowInput } from './removal-types';

/** Starts a removal's workflow (workflow id = removal id, so a repeated start is harmless). */
export async function startRemovalWorkflow(
  temporal: Client,
  config: Config,
  r: { id: string; itemId: string; publisherId: string; removesAt: Date },
) {
  const input: RemovalWorkflowInput = {
    removalId: r.id,
    itemId: r.itemId,
    removesAt: r.removesAt.toISOString(),
  };
  try {
    return await temporal.workflow.start<RemovalWorkflow>('removeMarketplaceItemWorkflow', {
      workflowId: r.id,
      taskQueue: config.temporal.taskQueues.background,
      args: [input],
      typedSearchAttributes: [{ key: AccountIdKey, value: r.publisherId }],
      memo: { removesAt: input.removesAt, itemId: r.itemId },
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return temporal.workflow.getHandle(r.id);
    throw error;
  }
}
