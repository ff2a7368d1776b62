import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { ExecutionView, RunVoiceWorkflowInput } from '../src/voice-workflows/execution-types';
import { progressQuery } from './messages';
import { executeVoiceGraph, type GraphProgress } from './voice-graph';

/**
 * One voice-workflow execution (workflow id = the `exec_…` id): interprets the pinned graph
 * (workflows/voice-graph.ts: node timeouts and retries there), records progress while
 * side-effecting nodes run, then records the result with its events. A failed node fails this
 * workflow too (after recording), so the Web UI shows it as Failed with the node and the error.
 */
export async function runVoiceWorkflow(input: RunVoiceWorkflowInput): Promise<ExecutionView | null> {
  const progress: GraphProgress = { currentNodes: [], steps: [] };
  setHandler(progressQuery, () => ({ currentNodes: progress.currentNodes, steps: progress.steps }));
  const { trace, view } = await executeVoiceGraph(input, { showDetails: true, progress });
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
