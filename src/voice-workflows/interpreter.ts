import { type CallNodeType, requestCall } from './call-nodes';
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
 * cancelled. The execution ends when every reachable node has settled. A call node (`end_call`,
 * `transfer_call`, `press_digits`: src/voice-workflows/call-nodes.ts) only asks: its result is the
 * action, which the call's transport performs once the run is over.
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

export interface InterpreterOptions {
  isCancellation?: (error: unknown) => boolean;
  /**
   * The call actions the call the run is on can take; a call node of another type fails ("end_call
   * runs only on a phone call"). Undefined: every call node asks its action (a dry run).
   */
  callActions?: readonly CallNodeType[];
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

/** One interpretation in progress: the graph's edges by node, and what has started and settled so far. */
interface Interpretation {
  input: unknown;
  effects: InterpreterEffects;
  opts: InterpreterOptions;
  nodes: Map<string, GraphNode>;
  nodeIds: string[];
  incoming: Map<string, GraphEdge[]>;
  outgoing: Map<string, GraphEdge[]>;
  edgeState: Map<GraphEdge, 'taken' | 'skipped'>;
  started: Set<string>;
  running: Set<string>;
  steps: StepRecord[];
  output: ExecutionOutput;
  scope: Scope;
  /** The nodes' runs not yet awaited. */
  pending: Promise<void>[];
  /** The first failure. */
  failure?: Trace['error'];
}

/** A new interpretation of the graph: its edges by node, nothing started yet. */
function interpretation(
  graph: WorkflowGraph,
  input: unknown,
  effects: InterpreterEffects,
  opts: Interpretation['opts'],
): Interpretation {
  const nodeIds = graph.nodes.map((n) => n.id);
  const incoming = new Map<string, GraphEdge[]>(nodeIds.map((id) => [id, []]));
  const outgoing = new Map<string, GraphEdge[]>(nodeIds.map((id) => [id, []]));
  for (const edge of graph.edges) {
    incoming.get(edge.targetId)?.push(edge);
    outgoing.get(edge.sourceId)?.push(edge);
  }
  const output: ExecutionOutput = { speech: [], results: {} };
  return {
    input,
    effects,
    opts,
    nodes: new Map(graph.nodes.map((n) => [n.id, n])),
    nodeIds,
    incoming,
    outgoing,
    edgeState: new Map(),
    started: new Set(),
    running: new Set(),
    steps: [],
    output,
    scope: { input, results: output.results },
    pending: [],
  };
}

/** Marks each out-edge of a settled node taken or skipped, then considers the nodes they lead to. */
function settleOut(state: Interpretation, node: GraphNode, taken: (edge: GraphEdge) => boolean): void {
  for (const edge of state.outgoing.get(node.id) ?? [])
    state.edgeState.set(edge, taken(edge) ? 'taken' : 'skipped');
  for (const edge of state.outgoing.get(node.id) ?? []) consider(state, edge.targetId);
}

/** Once every incoming edge of a node is settled: runs it if one was taken, else skips it. */
function consider(state: Interpretation, id: string): void {
  if (state.started.has(id) || state.failure) return;
  const edges = state.incoming.get(id) ?? [];
  if (!edges.every((e) => state.edgeState.has(e))) return;
  state.started.add(id);
  const node = state.nodes.get(id) as GraphNode;
  if (edges.some((e) => state.edgeState.get(e) === 'taken')) {
    state.pending.push(runNode(state, node));
  } else {
    state.steps.push({
      nodeId: id,
      type: node.type,
      status: 'skipped',
      startedAt: null,
      completedAt: null,
      durationMs: null,
    });
    settleOut(state, node, () => false);
  }
}

/** What a node does: its result (side effects through `effects`). */
async function executeNode(state: Interpretation, node: GraphNode): Promise<NodeRun> {
  const { scope, effects } = state;
  const config = node.config ?? {};
  switch (node.type) {
    case 'start':
      return { result: state.input ?? null };
    case 'end':
      return { result: null };
    case 'speak': {
      const text = renderText(String(config.text), scope);
      state.output.speech.push(text);
      return { result: text };
    }
    case 'condition':
      return { result: evaluateExpression(String(config.expression), state.nodeIds, scope) };
    case 'mcp_call': {
      const args = renderArguments(config.arguments ?? {}, scope) as Record<string, unknown>;
      return effects.callTool(node as McpCallNode, args);
    }
    case 'llm_prompt':
      return effects.prompt(node as LlmPromptNode, renderText(String(config.prompt), scope));
    case 'end_call':
    case 'transfer_call':
    case 'press_digits':
      return { result: requestCall({ ...node, type: node.type }, scope, state.opts.callActions) };
    default:
      throw new Error(`Unknown node type ${node.type}`);
  }
}

/** Runs a node, records its step and settles its out-edges; its failure fails the execution. */
async function runNode(state: Interpretation, node: GraphNode): Promise<void> {
  const startedAt = state.effects.now();
  state.running.add(node.id);
  state.effects.nodeStarted?.(node, [...state.running], state.steps);
  try {
    const outcome = await executeNode(state, node);
    nodeCompleted(state, node, startedAt, outcome);
  } catch (error) {
    nodeFailed(state, node, startedAt, error);
  }
}

/** A node completed: its result and step, then its out-edges (a condition's `true` or `false` one). */
function nodeCompleted(state: Interpretation, node: GraphNode, startedAt: number, outcome: NodeRun): void {
  state.running.delete(node.id);
  const begin = outcome.startedAt ?? startedAt;
  const durationMs = outcome.durationMs ?? Math.max(0, state.effects.now() - startedAt);
  state.output.results[node.id] = outcome.result;
  state.steps.push({
    nodeId: node.id,
    type: node.type,
    status: 'completed',
    startedAt: iso(begin),
    completedAt: iso(begin + durationMs),
    durationMs,
    result: outcome.result,
  });
  if (node.type === 'condition') {
    settleOut(state, node, (e) => e.condition === (outcome.result ? 'true' : 'false'));
  } else {
    settleOut(state, node, () => true);
  }
}

/** A node failed (or was cancelled by an earlier failure); the first failure aborts the rest. */
function nodeFailed(state: Interpretation, node: GraphNode, startedAt: number, error: unknown): void {
  state.running.delete(node.id);
  const message = failureMessage(error);
  const cancelled = state.failure !== undefined && (state.opts.isCancellation?.(error) ?? false);
  const completedAt = state.effects.now();
  state.steps.push({
    nodeId: node.id,
    type: node.type,
    status: cancelled ? 'cancelled' : 'failed',
    startedAt: iso(startedAt),
    completedAt: iso(completedAt),
    durationMs: Math.max(0, completedAt - startedAt),
    error: cancelled ? 'Cancelled: another node failed' : message,
  });
  if (!state.failure) {
    state.failure = { nodeId: node.id, message };
    state.effects.abort?.();
  }
}

export async function interpretGraph(
  graph: WorkflowGraph,
  input: unknown,
  effects: InterpreterEffects,
  opts: InterpreterOptions = {},
): Promise<Trace> {
  const state = interpretation(graph, input, effects, opts);
  const start = graph.nodes.find((n) => n.type === 'start');
  if (!start) throw new Error('The workflow has no start node');
  state.started.add(start.id);
  state.pending.push(runNode(state, start));
  while (state.pending.length > 0) await Promise.all(state.pending.splice(0));

  const { steps, output, failure } = state;
  return failure
    ? { status: 'failed', steps, output, error: failure }
    : { status: 'completed', steps, output };
}
