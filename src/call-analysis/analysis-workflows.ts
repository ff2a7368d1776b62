import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { analyzeSessionWorkflow } from '../../workflows/analyze-session';
import type { Config } from '../config/env';
import { AccountIdKey, PersonaIdKey } from '../temporal/search-attributes';

export interface AnalysisToStart {
  id: string;
  accountId: string;
  personaId: string;
  sessionId: string;
}

/**
 * Starts an analysis's workflow with the analysis id as workflow id, so a repeated start (a
 * dispatcher that crashed before recording the start) is harmless; searchable by account and persona.
 */
export async function startAnalysisWorkflow(temporal: Client, config: Config, a: AnalysisToStart) {
  try {
    return await temporal.workflow.start<typeof analyzeSessionWorkflow>('analyzeSessionWorkflow', {
      workflowId: a.id,
      taskQueue: config.temporal.taskQueues.background,
      args: [{ analysisId: a.id }],
      typedSearchAttributes: [
        { key: AccountIdKey, value: a.accountId },
        { key: PersonaIdKey, value: a.personaId },
      ],
      memo: { sessionId: a.sessionId },
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return temporal.workflow.getHandle(a.id);
    throw error;
  }
}
