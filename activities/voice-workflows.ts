import { ApplicationFailure } from '@temporalio/activity';
import type { Environment } from '../src/common/owner';
import { callMcpTool, completePrompt, type Outcome } from '../src/tools/execute';
import { finishExecution, recordProgress } from '../src/voice-workflows/execution-store';
import { type ExecutionRef, type ExecutionView, executionView } from '../src/voice-workflows/execution-types';
import type { NodeRun, StepRecord, Trace } from '../src/voice-workflows/interpreter';
import type { ActivityDeps } from './deps';

interface NodeCallBase {
  accountId: string;
  environment: Environment;
  nodeId: string;
  timeoutMs?: number;
}

/** A failed outcome as an activity failure: retried only when the work never ran (`retryable`). */
function toNodeRun(outcome: Outcome, startedAt: number): NodeRun {
  if (!outcome.success) {
    throw ApplicationFailure.create({
      message: outcome.error,
      type: 'NodeFailed',
      nonRetryable: !outcome.retryable,
    });
  }
  return { result: outcome.result, startedAt, durationMs: Date.now() - startedAt };
}

export function createVoiceWorkflowActivities(deps: ActivityDeps) {
  const knex = deps.orm.em.getConnection().getKnex();
  return {
    /** An `mcp_call` node: one tools/call on one of the account's MCP servers. */
    async callWorkflowTool(
      input: NodeCallBase & { serverId: string; toolName: string; arguments: Record<string, unknown> },
    ): Promise<NodeRun> {
      const startedAt = Date.now();
      const outcome = await callMcpTool(deps, input, {
        serverId: input.serverId,
        toolName: input.toolName,
        arguments: input.arguments,
        timeoutMs: input.timeoutMs,
      });
      return toNodeRun(outcome, startedAt);
    },

    /** An `llm_prompt` node: one chat completion from the configured OpenAI-compatible provider. */
    async completeWorkflowPrompt(
      input: NodeCallBase & { prompt: string; model?: string; maxTokens?: number },
    ): Promise<NodeRun> {
      const startedAt = Date.now();
      const outcome = await completePrompt(deps, {
        content: input.prompt,
        model: input.model,
        maxTokens: input.maxTokens,
        timeoutMs: input.timeoutMs,
      });
      return toNodeRun(outcome, startedAt);
    },

    /** Steps so far, nodes running now, and `workflow.step.completed` events (see src/voice-workflows/execution-store.ts). */
    async recordExecutionProgress(
      input: ExecutionRef & { steps: StepRecord[]; newSteps: StepRecord[]; currentNodes: string[] },
    ): Promise<void> {
      await recordProgress(knex, input);
    },

    /** The final trace, the last events and `workflow.completed` / `workflow.failed`; the record. */
    async finishWorkflowExecution(
      input: ExecutionRef & { startedAt: string; trace: Trace; newSteps: StepRecord[] },
    ): Promise<ExecutionView | null> {
      const row = await finishExecution(deps.orm.em, input);
      return row ? executionView(row) : null;
    },
  };
}
