import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ingestKnowledgeSourceWorkflow } from '../../workflows/ingest-knowledge-source';
import type { Config } from '../config/env';
import { AccountIdKey } from '../temporal/search-attributes';

export interface IngestionToStart {
  sourceId: string;
  accountId: string;
  /** The generation its chunks are written under (1 for the first ingestion, +1 per refresh). */
  generation: number;
}

/**
 * Starts a source's ingestion (the background pool), workflow id = the source id. The first one is
 * started once (a repeat, the dispatcher after the API crashed, finds it started). A refresh's may find
 * the previous run still closing (its last step done): that run is terminated and this one starts.
 */
export async function startIngestionWorkflow(temporal: Client, config: Config, s: IngestionToStart) {
  try {
    return await temporal.workflow.start<typeof ingestKnowledgeSourceWorkflow>(
      'ingestKnowledgeSourceWorkflow',
      {
        workflowId: s.sourceId,
        taskQueue: config.temporal.taskQueues.background,
        args: [{ sourceId: s.sourceId, generation: s.generation }],
        workflowIdConflictPolicy: s.generation > 1 ? 'TERMINATE_EXISTING' : 'FAIL',
        typedSearchAttributes: [{ key: AccountIdKey, value: s.accountId }],
      },
    );
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      return temporal.workflow.getHandle<typeof ingestKnowledgeSourceWorkflow>(s.sourceId);
    }
    throw error;
  }
}
