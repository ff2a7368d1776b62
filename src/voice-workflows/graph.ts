import { describeIssuesUnder } from '../http/validation';
import { compileExpression } from './expressions';
import { NODE_CONFIG_SCHEMAS, NODE_TYPES, type NodeType, templatedFields } from './node-configs';
import { describeReference, NODE_ID_PATTERN, type Reference } from './paths';
import { templateReferences } from './templates';

export { NODE_CONFIG_SCHEMAS, NODE_TYPES, type NodeType } from './node-configs';

export interface GraphNode {
  id: string;
  type: string;
  config?: Record<string, unknown>;
}

export interface GraphEdge {
  sourceId: string;
  targetId: string;
  condition?: 'true' | 'false';
}

export interface WorkflowGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** Every node each node can be reached from (its ancestors); undefined where the graph has a cycle. */
function ancestorsOf(ids: string[], edges: GraphEdge[]): Map<string, Set<string>> {
  const parents = new Map(ids.map((id) => [id, [] as string[]]));
  for (const e of edges) parents.get(e.targetId)?.push(e.sourceId);
  const memo = new Map<string, Set<string>>();
  const visit = (id: string, stack: Set<string>): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    if (stack.has(id)) return new Set();
    stack.add(id);
    const result = new Set<string>();
    for (const p of parents.get(id) ?? []) {
      result.add(p);
      for (const a of visit(p, stack)) result.add(a);
    }
    stack.delete(id);
    memo.set(id, result);
    return result;
  };
  for (const id of ids) visit(id, new Set());
  return memo;
}

/** A cycle as `a → b → a`, if there is one. */
function findCycle(ids: string[], edges: GraphEdge[]): string[] | undefined {
  const children = new Map(ids.map((id) => [id, [] as string[]]));
  for (const e of edges) children.get(e.sourceId)?.push(e.targetId);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 'open');
    path.push(id);
    for (const next of children.get(id) ?? []) {
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of ids) {
    if (!state.has(id)) {
      const cycle = visit(id);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

/** What the checks of a graph share: its nodes, the first position of each id, the problems so far. */
interface GraphCheck {
  nodes: GraphNode[];
  /** Each node id's first index in `nodes` (a duplicate id keeps the first). */
  index: Map<string, number>;
  problems: string[];
}

/** Each node's id, type and config; returns the first index of each id. */
function nodeProblems(nodes: GraphNode[], problems: string[]): Map<string, number> {
  const index = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (!NODE_ID_PATTERN.test(node.id)) {
      problems.push(`nodes[${i}].id: must be 1-64 letters, digits, _ or -`);
    }
    if (node.id === 'trigger')
      problems.push(`nodes[${i}].id: "trigger" is reserved (trigger.<name> reads a parameter)`);
    if (index.has(node.id)) problems.push(`nodes[${i}].id: duplicate id "${node.id}"`);
    else index.set(node.id, i);
    if (!(NODE_TYPES as readonly string[]).includes(node.type)) {
      problems.push(`nodes[${i}].type: unknown node type "${node.type}" (one of ${NODE_TYPES.join(', ')})`);
      return;
    }
    const parsed = NODE_CONFIG_SCHEMAS[node.type as NodeType].safeParse(node.config);
    if (!parsed.success) {
      for (const line of describeIssuesUnder(parsed.error.issues, `nodes[${i}].config`)) problems.push(line);
    }
  });
  return index;
}

/**
 * Each edge's ends, duplicates and condition (start nodes have no incoming edges, end nodes no
 * outgoing ones, only condition nodes' out-edges carry a condition); returns the edges whose ends exist.
 */
function edgeProblems({ nodes, index, problems }: GraphCheck, edges: GraphEdge[]): GraphEdge[] {
  const typeOf = (id: string) => nodes[index.get(id) ?? -1]?.type;
  const seenEdges = new Set<string>();
  const validEdges: GraphEdge[] = [];
  edges.forEach((edge, i) => {
    let ok = true;
    for (const end of ['sourceId', 'targetId'] as const) {
      if (!index.has(edge[end])) {
        problems.push(`edges[${i}].${end}: no node "${edge[end]}"`);
        ok = false;
      }
    }
    const key = `${edge.sourceId}\u0000${edge.targetId}`;
    if (seenEdges.has(key)) problems.push(`edges[${i}]: duplicate edge ${edge.sourceId} → ${edge.targetId}`);
    seenEdges.add(key);
    if (ok && typeOf(edge.targetId) === 'start')
      problems.push(`edges[${i}].targetId: the start node has no incoming edges`);
    if (ok && typeOf(edge.sourceId) === 'end')
      problems.push(`edges[${i}].sourceId: an end node has no outgoing edges`);
    if (ok && typeOf(edge.sourceId) === 'condition') {
      if (edge.condition === undefined) {
        problems.push(
          `edges[${i}].condition: required ("true" or "false") on edges leaving condition node "${edge.sourceId}"`,
        );
      }
    } else if (edge.condition !== undefined) {
      problems.push(`edges[${i}].condition: only edges leaving a condition node carry a condition`);
    }
    if (ok) validEdges.push(edge);
  });
  return validEdges;
}

/** Each condition node needs exactly one `true` and one `false` out-edge. */
function conditionEdgeProblems({ nodes, index, problems }: GraphCheck, validEdges: GraphEdge[]): void {
  nodes.forEach((node, i) => {
    if (node.type !== 'condition' || index.get(node.id) !== i) return;
    const out = validEdges.filter((e) => e.sourceId === node.id);
    const trues = out.filter((e) => e.condition === 'true').length;
    const falses = out.filter((e) => e.condition === 'false').length;
    if (trues !== 1 || falses !== 1) {
      problems.push(
        `nodes[${i}]: condition node "${node.id}" needs exactly one "true" and one "false" out-edge (found ${trues} true, ${falses} false)`,
      );
    }
  });
}

/** Every node must be reachable from the start node. */
function unreachableProblems(
  { nodes, index, problems }: GraphCheck,
  startId: string,
  validEdges: GraphEdge[],
): void {
  const reached = new Set([startId]);
  const queue = [startId];
  while (queue.length) {
    const id = queue.shift() as string;
    for (const e of validEdges) {
      if (e.sourceId === id && !reached.has(e.targetId)) {
        reached.add(e.targetId);
        queue.push(e.targetId);
      }
    }
  }
  nodes.forEach((node, i) => {
    if (index.get(node.id) === i && !reached.has(node.id)) {
      problems.push(`nodes[${i}]: "${node.id}" is not reachable from the start node`);
    }
  });
}

/** A node's references in `field` must name a node that runs before it. */
function nodeReferenceProblems(
  { nodes, index, problems }: GraphCheck,
  ancestors: Map<string, Set<string>>,
  i: number,
  field: string,
  refs: Reference[],
): void {
  const node = nodes[i];
  for (const ref of refs) {
    if (ref.kind !== 'node') continue;
    if (!index.has(ref.nodeId)) {
      problems.push(
        `nodes[${i}].config.${field}: ${describeReference(ref)} refers to no node "${ref.nodeId}"`,
      );
    } else if (!ancestors.get(node.id)?.has(ref.nodeId)) {
      problems.push(
        `nodes[${i}].config.${field}: ${describeReference(ref)} refers to "${ref.nodeId}", which does not run before "${node.id}"`,
      );
    }
  }
}

/**
 * The templates and condition expressions of each node: they must parse, and every node they refer
 * to must run before it (for a graph without cycles).
 */
function referenceProblems(check: GraphCheck, ids: string[], validEdges: GraphEdge[]): void {
  const { nodes, index, problems } = check;
  const ancestors = ancestorsOf(ids, validEdges);
  nodes.forEach((node, i) => {
    if (index.get(node.id) !== i) return;
    for (const { field, texts } of templatedFields(node)) {
      for (const text of texts) {
        const { refs, problems: bad } = templateReferences(text);
        for (const p of bad) problems.push(`nodes[${i}].config.${field}: ${p}`);
        nodeReferenceProblems(check, ancestors, i, field, refs);
      }
    }
    if (node.type === 'condition' && typeof node.config?.expression === 'string') {
      const compiled = compileExpression(node.config.expression, ids);
      if (typeof compiled === 'string') problems.push(`nodes[${i}].config.expression: ${compiled}`);
      else nodeReferenceProblems(check, ancestors, i, 'expression', compiled.refs);
    }
  });
}

/**
 * Every structural problem of a definition at once (the caller adds the database checks, such as
 * MCP server ownership), as `<field>: <problem>` lines.
 */
export function graphProblems(graph: WorkflowGraph): string[] {
  const problems: string[] = [];
  const { nodes, edges } = graph;
  const index = nodeProblems(nodes, problems);

  const starts = nodes.filter((n) => n.type === 'start');
  if (starts.length !== 1)
    problems.push(`nodes: exactly one start node is required (found ${starts.length})`);
  if (!nodes.some((n) => n.type === 'end')) problems.push('nodes: at least one end node is required');

  const check: GraphCheck = { nodes, index, problems };
  const validEdges = edgeProblems(check, edges);
  conditionEdgeProblems(check, validEdges);

  const ids = [...index.keys()];
  const cycle = findCycle(ids, validEdges);
  if (cycle) problems.push(`edges: cycle ${cycle.join(' → ')}`);
  if (starts.length === 1) unreachableProblems(check, starts[0].id, validEdges);
  if (!cycle) referenceProblems(check, ids, validEdges);
  return problems;
}
