import {
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  isCancellation,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ExecutionRef, ExecutionView, RunVoiceWorkflowInput } from '../src/workflows/execution-types';
import type { GraphNode } from '../src/workflows/graph';
import { interpretGraph, type StepRecord } from '../src/workflows/interpreter';

/**
 * Timeouts and retries per node type (local activities: they run in the worker that runs the
 * workflow, without a round trip through the Temporal server per node, which keeps a voice turn
 * fast):
 * - `mcp_call`: 30 s per attempt (the node's `timeoutMs` when set), 3 attempts, retried only when the
 *   server was not reached (the tool never ran); a tool error fails the node at once.
 * - `llm_prompt`: 30 s per attempt (or `timeoutMs`), 3 attempts on 429, 5xx or an unreachable provider.
 * - recording progress and the result: 10 s per attempt, retried until the database answers.
 * - `start`, `speak`, `condition`, `end`: computed in the workflow itself, no activity.
 */
const NODE_TIMEOUT_MS = 30_000;
const nodeRetry = { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 };

function nodeActivities(timeoutMs: number | undefined) {
  return proxyLocalActivities<Activities>({
    startToCloseTimeout: timeoutMs ?? NODE_TIMEOUT_MS,
    retry: nodeRetry,
  });
}

const { recordExecutionProgress, finishWorkflowExecution } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** The nodes running now and the steps settled so far (also shown as the execution's current details). */
export const progressQuery = defineQuery<{ currentNodes: string[]; steps: StepRecord[] }>('progress');

function describeProgress(running: string[], nodes: GraphNode[], settled: number): string {
  const typeOf = (id: string) => nodes.find((n) => n.id === id)?.type ?? '?';
  const now = running.map((id) => `\`${id}\` (${typeOf(id)})`).join(', ') || 'none';
  return `**Running:** ${now}\n\n**Settled:** ${settled} of ${nodes.length} nodes`;
}

/**
 * One voice-workflow execution (workflow id = the `exec_…` id): interprets the pinned graph
 * (src/workflows/interpreter.ts), records progress while side-effecting nodes run, then records the
 * result with its events. A failed node fails this workflow too (after recording), so the Web UI
 * shows it as Failed with the node and the error.
 */
export async function runVoiceWorkflow(input: RunVoiceWorkflowInput): Promise<ExecutionView | null> {
  const ref: ExecutionRef = {
    executionId: input.executionId,
    workflowId: input.workflowId,
    accountId: input.accountId,
    environment: input.environment,
    sessionId: input.sessionId,
  };
  const owner = { accountId: input.accountId, environment: input.environment };
  const nodes = input.graph.nodes;
  let steps: StepRecord[] = [];
  let running: string[] = [];
  let recorded = 0;
  setHandler(progressQuery, () => ({ currentNodes: running, steps }));

  const flushProgress = async () => {
    const newSteps = steps.slice(recorded);
    recorded = steps.length;
    await recordExecutionProgress({ ...ref, steps: [...steps], newSteps, currentNodes: running });
  };

  const scope = new CancellationScope();
  const trace = await interpretGraph(
    input.graph,
    input.input,
    {
      now: () => Date.now(),
      nodeStarted: (_node, now, settled) => {
        running = now;
        steps = settled;
        setCurrentDetails(describeProgress(now, nodes, settled.length));
      },
      abort: () => scope.cancel(),
      callTool: async (node, args) => {
        const call = scope.run(() =>
          nodeActivities(node.config.timeoutMs).callWorkflowTool({
            ...owner,
            nodeId: node.id,
            serverId: node.config.serverId,
            toolName: node.config.toolName,
            arguments: args,
            timeoutMs: node.config.timeoutMs,
          }),
        );
        const [run] = await Promise.all([call, flushProgress()]);
        return run;
      },
      prompt: async (node, text) => {
        const call = scope.run(() =>
          nodeActivities(node.config.timeoutMs).completeWorkflowPrompt({
            ...owner,
            nodeId: node.id,
            prompt: text,
            model: node.config.model,
            maxTokens: node.config.maxTokens,
            timeoutMs: node.config.timeoutMs,
          }),
        );
        const [run] = await Promise.all([call, flushProgress()]);
        return run;
      },
    },
    { isCancellation },
  );
  running = [];
  steps = trace.steps;
  setCurrentDetails(
    trace.error
      ? `**Failed** at \`${trace.error.nodeId}\`: ${trace.error.message}`
      : `**Completed:** ${trace.steps.filter((s) => s.status === 'completed').length} steps`,
  );
  const view = await finishWorkflowExecution({
    ...ref,
    startedAt: input.startedAt,
    trace,
    newSteps: trace.steps.slice(recorded),
  });
  if (trace.error) {
    throw ApplicationFailure.create({
      message: `Node ${trace.error.nodeId} failed: ${trace.error.message}`,
      type: 'WorkflowNodeFailed',
      nonRetryable: true,
      details: [view],
    });
  }
  return view;
}
