import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { voiceSessionWorkflow } from '../../workflows/voice-session';
import type { Config } from '../config/env';
import { AccountIdKey, PersonaIdKey, UserIdKey } from '../temporal/search-attributes';

export interface SessionToStart {
  id: string;
  accountId: string;
  personaId: string;
  userId: string;
}

/**
 * Starts a session's workflow (workflow id = the `sess_…` id, so a repeated start is harmless),
 * searchable by account, persona and user in the Web UI.
 */
export async function startSessionWorkflow(temporal: Client, config: Config, s: SessionToStart) {
  try {
    return await temporal.workflow.start<typeof voiceSessionWorkflow>('voiceSessionWorkflow', {
      workflowId: s.id,
      taskQueue: config.temporal.taskQueues.conversations,
      args: [
        {
          sessionId: s.id,
          idleTimeoutMs: config.sessions.idleTimeoutS * 1000,
          turnsPerRun: config.sessions.turnsPerRun,
        },
      ],
      typedSearchAttributes: [
        { key: AccountIdKey, value: s.accountId },
        { key: PersonaIdKey, value: s.personaId },
        { key: UserIdKey, value: s.userId },
      ],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return temporal.workflow.getHandle(s.id);
    throw error;
  }
}
