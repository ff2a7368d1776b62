import {
  CancellationScope,
  isCancellation,
  proxyLocalActivities,
  setCurrentDetails,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RunOnCall } from '../src/voice-workflows/call-nodes';
import type {
  ExecutionRef,
  ExecutionView,
  RunVoiceWorkflowInput,
} from '../src/voice-workflows/execution-types';
import type { GraphNode } from '../src/voice-workflows/graph';
import {
  interpretGraph,
  type NodeRun,
  type StepRecord,
  type Trace,
} from '../src/voice-workflows/interpreter';

/**
 * Timeouts and retries per node type (local activities: they run in the worker that runs the
 * workflow, without a round trip through the Temporal server per node, which keeps a voice turn
 * fast):
 * - `mcp_call`: 30 s per attempt (the node's `timeoutMs` when set), 3 attempts, retried only when the
 *   server was not reached (the tool never ran); a tool error fails the node at once.
 * - `llm_prompt`: 30 s per attempt (or `timeoutMs`), 3 attempts on 429, 5xx or an unreachable provider.
 * - recording progress and the result: 10 s per attempt, retried until the database answers.
 * - `start`, `speak`, `condition`, `end` and the call nodes (`end_call`, `transfer_call`,
 *   `press_digits`, which only ask: the call's transport acts): computed in the workflow itself, no
 *   activity.
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

function describeProgress(running: string[], nodes: GraphNode[], settled: number): string {
  const typeOf = (id: string) => nodes.find((n) => n.id === id)?.type ?? '?';
  const now = running.map((id) => `\`${id}\` (${typeOf(id)})`).join(', ') || 'none';
  return `**Running:** ${now}\n\n**Settled:** ${settled} of ${nodes.length} nodes`;
}

function describeOutcome(trace: Trace): string {
  return trace.error
    ? `**Failed** at \`${trace.error.nodeId}\`: ${trace.error.message}`
    : `**Completed:** ${trace.steps.filter((s) => s.status === 'completed').length} steps`;
}

export interface GraphProgress {
  currentNodes: string[];
  steps: StepRecord[];
}

/**
 * One voice-workflow execution, interpreted in the calling workflow (src/voice-workflows/interpreter.ts):
 * records progress while side-effecting nodes run, then the result with its events. Runs as its own
 * workflow (runVoiceWorkflow, triggered executions) or inside a voice session's turn (a session's
 * voice command: no child workflow, so the turn costs no extra round trips through the server).
 * `showDetails` sets the calling workflow's current details while it runs. A voice command's plan
 * says which call actions its call can take (`callActions`); without, the run is on no call and its
 * call nodes fail.
 */
export async function executeVoiceGraph(
  input: RunVoiceWorkflowInput & RunOnCall,
  opts: { showDetails: boolean; progress?: GraphProgress },
): Promise<{ trace: Trace; view: ExecutionView | null }> {
  const ref: ExecutionRef = {
    executionId: input.executionId,
    workflowId: input.workflowId,
    accountId: input.accountId,
    environment: input.environment,
    sessionId: input.sessionId,
  };
  const owner = { accountId: input.accountId, environment: input.environment };
  const nodes = input.graph.nodes;
  const progress = opts.progress ?? { currentNodes: [], steps: [] };
  let recorded = 0;

  const flushProgress = async () => {
    const newSteps = progress.steps.slice(recorded);
    recorded = progress.steps.length;
    await recordExecutionProgress({
      ...ref,
      steps: [...progress.steps],
      newSteps,
      currentNodes: progress.currentNodes,
    });
  };

  const scope = new CancellationScope();
  // a node's activity starts in the execution's scope, while the progress so far is recorded
  const runNode = async (start: () => Promise<NodeRun>) => {
    const [run] = await Promise.all([scope.run(start), flushProgress()]);
    return run;
  };
  const trace = await interpretGraph(
    input.graph,
    input.input,
    {
      now: () => Date.now(),
      nodeStarted: (_node, now, settled) => {
        progress.currentNodes = now;
        progress.steps = settled;
        if (opts.showDetails) setCurrentDetails(describeProgress(now, nodes, settled.length));
      },
      abort: () => scope.cancel(),
      callTool: (node, args) =>
        runNode(() =>
          nodeActivities(node.config.timeoutMs).callWorkflowTool({
            ...owner,
            nodeId: node.id,
            serverId: node.config.serverId,
            toolName: node.config.toolName,
            arguments: args,
            timeoutMs: node.config.timeoutMs,
          }),
        ),
      prompt: (node, text) =>
        runNode(() =>
          nodeActivities(node.config.timeoutMs).completeWorkflowPrompt({
            ...owner,
            nodeId: node.id,
            prompt: text,
            model: node.config.model,
            maxTokens: node.config.maxTokens,
            timeoutMs: node.config.timeoutMs,
          }),
        ),
    },
    // a field of the input only: call nodes run no activity, so no command changes and no patch
    { isCancellation, callActions: input.callActions ?? [] },
  );
  progress.currentNodes = [];
  progress.steps = trace.steps;
  if (opts.showDetails) setCurrentDetails(describeOutcome(trace));
  const view = await finishWorkflowExecution({
    ...ref,
    startedAt: input.startedAt,
    trace,
    newSteps: trace.steps.slice(recorded),
  });
  return { trace, view };
}
