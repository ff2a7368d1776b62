import { evaluateExpression } from './expressions';
import type { GraphEdge, GraphNode, WorkflowGraph } from './graph';
import type { Scope } from './paths';
import type { FinalStatus, StepStatus } from './statuses';
import { renderArguments, renderText } from './templates';

/**
 * The workflow graph interpreter, shared by real executions (inside the Temporal workflow, where
 * side effects are activities) and dry runs (in the API process, where they are mocks). Pure and
 * deterministic given its effects: workflow-safe.
 *
 * Rules: a node runs once every incoming edge is settled and at least one was taken; when none was
 * taken it is skipped and its out-edges are skipped too. A condition node takes its `true` or
 * `false` edge; every other node takes all its out-edges. Independent branches run concurrently.
 * The first failing node fails the execution: no new node starts and nodes still running are
 * cancelled. The execution ends when every reachable node has settled.
 */

export interface StepRecord {
  nodeId: string;
  type: string;
  status: StepStatus;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  result?: unknown;
  error?: string;
}

export interface ExecutionOutput {
  /** The rendered text of each `speak` node, in the order they ran. */
  speech: string[];
  /** Each completed node's result, by node id. */
  results: Record<string, unknown>;
}

export interface Trace {
  status: FinalStatus;
  steps: StepRecord[];
  output: ExecutionOutput;
  error?: { nodeId: string; message: string };
}

/** What a side-effecting node returns: its result, and its own timing when measured elsewhere. */
export interface NodeRun {
  result: unknown;
  startedAt?: number;
  durationMs?: number;
}

export interface McpCallNode extends GraphNode {
  config: { serverId: string; toolName: string; arguments?: Record<string, unknown>; timeoutMs?: number };
}

export interface LlmPromptNode extends GraphNode {
  config: { prompt: string; model?: string; maxTokens?: number; timeoutMs?: number };
}

export interface InterpreterEffects {
  /** Milliseconds since the epoch (the workflow clock inside Temporal). */
  now(): number;
  /** Runs an `mcp_call` with its rendered arguments; throws to fail the node. */
  callTool(node: McpCallNode, args: Record<string, unknown>): Promise<NodeRun>;
  /** Runs an `llm_prompt` with its rendered prompt; throws to fail the node. */
  prompt(node: LlmPromptNode, text: string): Promise<NodeRun>;
  /** A node started; `running` lists every node running now, `settled` the steps so far. */
  nodeStarted?(node: GraphNode, running: string[], settled: StepRecord[]): void;
  /** The first failure: stop what is still running. */
  abort?(): void;
}

/** The message of whatever a node threw. */
export function failureMessage(error: unknown): string {
  if (error && typeof error === 'object') {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return failureMessage(cause);
    if (error instanceof Error && error.message) return error.message;
  }
  return String(error);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export async function interpretGraph(
  graph: WorkflowGraph,
  input: unknown,
  effects: InterpreterEffects,
  opts: { isCancellation?: (error: unknown) => boolean } = {},
): Promise<Trace> {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const nodeIds = graph.nodes.map((n) => n.id);
  const incoming = new Map<string, GraphEdge[]>(nodeIds.map((id) => [id, []]));
  const outgoing = new Map<string, GraphEdge[]>(nodeIds.map((id) => [id, []]));
  for (const edge of graph.edges) {
    incoming.get(edge.targetId)?.push(edge);
    outgoing.get(edge.sourceId)?.push(edge);
  }
  const edgeState = new Map<GraphEdge, 'taken' | 'skipped'>();
  const started = new Set<string>();
  const running = new Set<string>();
  const steps: StepRecord[] = [];
  const output: ExecutionOutput = { speech: [], results: {} };
  const scope: Scope = { input, results: output.results };
  const pending: Promise<void>[] = [];
  let failure: Trace['error'];

  const settleOut = (node: GraphNode, taken: (edge: GraphEdge) => boolean) => {
    for (const edge of outgoing.get(node.id) ?? []) edgeState.set(edge, taken(edge) ? 'taken' : 'skipped');
    for (const edge of outgoing.get(node.id) ?? []) consider(edge.targetId);
  };

  const consider = (id: string) => {
    if (started.has(id) || failure) return;
    const edges = incoming.get(id) ?? [];
    if (!edges.every((e) => edgeState.has(e))) return;
    started.add(id);
    const node = nodes.get(id) as GraphNode;
    if (edges.some((e) => edgeState.get(e) === 'taken')) {
      pending.push(run(node));
    } else {
      steps.push({
        nodeId: id,
        type: node.type,
        status: 'skipped',
        startedAt: null,
        completedAt: null,
        durationMs: null,
      });
      settleOut(node, () => false);
    }
  };

  const execute = async (node: GraphNode): Promise<NodeRun> => {
    const config = node.config ?? {};
    switch (node.type) {
      case 'start':
        return { result: input ?? null };
      case 'end':
        return { result: null };
      case 'speak': {
        const text = renderText(String(config.text), scope);
        output.speech.push(text);
        return { result: text };
      }
      case 'condition':
        return { result: evaluateExpression(String(config.expression), nodeIds, scope) };
      case 'mcp_call': {
        const args = renderArguments(config.arguments ?? {}, scope) as Record<string, unknown>;
        return effects.callTool(node as McpCallNode, args);
      }
      case 'llm_prompt':
        return effects.prompt(node as LlmPromptNode, renderText(String(config.prompt), scope));
      default:
        throw new Error(`Unknown node type ${node.type}`);
    }
  };

  const run = async (node: GraphNode): Promise<void> => {
    const startedAt = effects.now();
    running.add(node.id);
    effects.nodeStarted?.(node, [...running], steps);
    try {
      const outcome = await execute(node);
      running.delete(node.id);
      const begin = outcome.startedAt ?? startedAt;
      const durationMs = outcome.durationMs ?? Math.max(0, effects.now() - startedAt);
      output.results[node.id] = outcome.result;
      steps.push({
        nodeId: node.id,
        type: node.type,
        status: 'completed',
        startedAt: iso(begin),
        completedAt: iso(begin + durationMs),
        durationMs,
        result: outcome.result,
      });
      if (node.type === 'condition') {
        settleOut(node, (e) => e.condition === (outcome.result ? 'true' : 'false'));
      } else {
        settleOut(node, () => true);
      }
    } catch (error) {
      running.delete(node.id);
      const message = failureMessage(error);
      const cancelled = failure !== undefined && (opts.isCancellation?.(error) ?? false);
      const completedAt = effects.now();
      steps.push({
        nodeId: node.id,
        type: node.type,
        status: cancelled ? 'cancelled' : 'failed',
        startedAt: iso(startedAt),
        completedAt: iso(completedAt),
        durationMs: Math.max(0, completedAt - startedAt),
        error: cancelled ? 'Cancelled: another node failed' : message,
      });
      if (!failure) {
        failure = { nodeId: node.id, message };
        effects.abort?.();
      }
    }
  };

  const start = graph.nodes.find((n) => n.type === 'start');
  if (!start) throw new Error('The workflow has no start node');
  started.add(start.id);
  pending.push(run(start));
  while (pending.length > 0) await Promise.all(pending.splice(0));

  return failure
    ? { status: 'failed', steps, output, error: failure }
    : { status: 'completed', steps, output };
}
