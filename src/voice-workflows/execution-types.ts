/** The shapes of an execution: the record the API answers, the Temporal workflow's input, and whom its events name. */
import type { Owner } from '../common/owner';
import type { WorkflowExecution } from './workflow.entity';

/** The execution record every endpoint answers with. */
export function executionView(e: WorkflowExecution) {
  return {
    id: e.id,
    workflowId: e.workflowId,
    version: e.version,
    status: e.status,
    sessionId: e.sessionId ?? null,
    input: e.input ?? null,
    output: e.output ?? null,
    steps: e.steps,
    currentNodes: e.status === 'running' ? e.currentNodes : [],
    error: e.error ?? null,
    startedAt: e.startedAt.toISOString(),
    completedAt: e.completedAt ? e.completedAt.toISOString() : null,
    durationMs: e.durationMs ?? null,
    ...(e.match ? { match: e.match } : {}),
  };
}

export type ExecutionView = ReturnType<typeof executionView>;

/** What the Temporal workflow is started with: everything it needs, the graph pinned. */
export interface RunVoiceWorkflowInput {
  executionId: string;
  workflowId: string;
  version: number;
  accountId: string;
  environment: Owner['environment'];
  sessionId: string | null;
  startedAt: string;
  graph: WorkflowExecution['definition'];
  input: unknown;
}

export function workflowInputOf(e: WorkflowExecution): RunVoiceWorkflowInput {
  return {
    executionId: e.id,
    workflowId: e.workflowId,
    version: e.version,
    accountId: e.account,
    environment: e.environment,
    sessionId: e.sessionId ?? null,
    startedAt: e.startedAt.toISOString(),
    graph: e.definition,
    input: e.input ?? null,
  };
}

/** Who an execution's events go to, and what they name. */
export interface ExecutionRef {
  executionId: string;
  workflowId: string;
  accountId: string;
  environment: Owner['environment'];
  sessionId: string | null;
}
