// the API's shapes, written out (not imported from the generated schema), so that this module and its
// unit test stand alone
export type WorkflowNode = { id: string; type: string; config?: Record<string, unknown> };
export type WorkflowEdge = { sourceId: string; targetId: string; condition?: 'true' | 'false' };
/** A workflow (or one of its versions) as the API answers it. */
export interface Workflow {
  name: string;
  description: string | null;
  trigger: { type: string; config: Record<string, unknown> };
  nodes: WorkflowNode[];
  edges: { sourceId: string; targetId: string; condition?: string }[];
}

/**
 * The node types a builder can add (a graph has exactly one start, made with it). The call nodes
 * act on a phone call once the run is over (docs/telephony.md "Call nodes in voice workflows").
 */
export const ADDABLE_TYPES = [
  'speak',
  'condition',
  'mcp_call',
  'llm_prompt',
  'press_digits',
  'transfer_call',
  'end_call',
  'end',
] as const;
export type AddableType = (typeof ADDABLE_TYPES)[number];

export const TYPE_LABELS: Record<string, string> = {
  start: 'Start',
  speak: 'Speak',
  condition: 'Condition',
  mcp_call: 'MCP call',
  llm_prompt: 'LLM prompt',
  press_digits: 'Press keys',
  transfer_call: 'Transfer call',
  end_call: 'Hang up',
  end: 'End',
};

/** A workflow as the builder edits it: the definition the API takes, nothing else. */
export interface Draft {
  name: string;
  description: string;
  trigger: { type: 'voice_command' | 'manual'; command: string };
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

/** A new workflow: a start and an end, joined. */
export function emptyDraft(): Draft {
  return {
    name: '',
    description: '',
    trigger: { type: 'voice_command', command: '' },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'end', type: 'end' },
    ],
    edges: [{ sourceId: 'start', targetId: 'end' }],
  };
}

/** A saved workflow (or one of its versions) as a draft. */
export function draftOf(w: Pick<Workflow, 'name' | 'description' | 'trigger' | 'nodes' | 'edges'>): Draft {
  const command = typeof w.trigger.config.command === 'string' ? w.trigger.config.command : '';
  return {
    name: w.name,
    description: w.description ?? '',
    trigger: { type: w.trigger.type === 'manual' ? 'manual' : 'voice_command', command },
    nodes: w.nodes.map((n) => ({ ...n, config: n.config ? { ...n.config } : undefined })),
    edges: w.edges.map((e) => ({
      sourceId: e.sourceId,
      targetId: e.targetId,
      ...(e.condition === 'true' || e.condition === 'false' ? { condition: e.condition } : {}),
    })),
  };
}

/** The draft as `POST /workflows` and `PUT /workflows/:id` take it. */
export function definitionOf(d: Draft) {
  return {
    name: d.name.trim(),
    description: d.description.trim() || undefined,
    trigger:
      d.trigger.type === 'manual'
        ? { type: 'manual' as const, config: {} }
        : { type: 'voice_command' as const, config: { command: d.trigger.command } },
    nodes: d.nodes,
    edges: d.edges,
  };
}

/** Default config of a node type: what its form starts from. */
function defaultConfig(type: AddableType): Record<string, unknown> | undefined {
  switch (type) {
    case 'speak':
      return { text: '' };
    case 'condition':
      return { expression: '' };
    case 'mcp_call':
      return { serverId: '', toolName: '', arguments: {} };
    case 'llm_prompt':
      return { prompt: '' };
    case 'press_digits':
      return { digits: '' };
    case 'transfer_call':
      return { destination: '', mode: 'cold' };
    default:
      return undefined;
  }
}

/**
 * What a call node's step asked of the call (its result: `{ call: 'press_digits', digits }`…), in
 * words, for a dry run's trace; null for any other result.
 */
export function describeCallRequest(result: unknown): string | null {
  if (!result || typeof result !== 'object') return null;
  const r = result as Record<string, unknown>;
  switch (r.call) {
    case 'press_digits':
      return `press ${String(r.digits)}`;
    case 'transfer_call':
      return `transfer (${String(r.mode)}) to ${String(r.destination)}`;
    case 'end_call':
      return r.closingLine ? `hang up after “${String(r.closingLine)}”` : 'hang up';
    default:
      return null;
  }
}

/** `speak_2`: the type and the first free number. */
export function freeId(type: string, nodes: WorkflowNode[]): string {
  const taken = new Set(nodes.map((n) => n.id));
  for (let i = 1; ; i++) {
    const id = `${type}_${i}`;
    if (!taken.has(id)) return id;
  }
}

export function addNode(d: Draft, type: AddableType): { draft: Draft; id: string } {
  const id = freeId(type, d.nodes);
  const config = defaultConfig(type);
  return { draft: { ...d, nodes: [...d.nodes, { id, type, ...(config ? { config } : {}) }] }, id };
}

export function removeNode(d: Draft, id: string): Draft {
  return {
    ...d,
    nodes: d.nodes.filter((n) => n.id !== id),
    edges: d.edges.filter((e) => e.sourceId !== id && e.targetId !== id),
  };
}

export function setConfig(d: Draft, id: string, config: Record<string, unknown>): Draft {
  return { ...d, nodes: d.nodes.map((n) => (n.id === id ? { ...n, config } : n)) };
}

/**
 * Joins two nodes. From a condition the edge carries the outcome it stands for (the handle it was
 * dragged from), and replaces an edge of the same outcome; a pair already joined is left as it is.
 */
export function connect(d: Draft, sourceId: string, targetId: string, condition?: 'true' | 'false'): Draft {
  if (sourceId === targetId) return d;
  const source = d.nodes.find((n) => n.id === sourceId);
  const outcome = source?.type === 'condition' ? (condition ?? 'true') : undefined;
  const kept = d.edges.filter(
    (e) =>
      !(e.sourceId === sourceId && e.targetId === targetId) &&
      !(outcome && e.sourceId === sourceId && e.condition === outcome),
  );
  return { ...d, edges: [...kept, { sourceId, targetId, ...(outcome ? { condition: outcome } : {}) }] };
}

export function disconnect(d: Draft, edge: WorkflowEdge): Draft {
  return {
    ...d,
    edges: d.edges.filter(
      (e) =>
        !(e.sourceId === edge.sourceId && e.targetId === edge.targetId && e.condition === edge.condition),
    ),
  };
}

/**
 * The API's validation problems placed where they belong: `nodes[3].config.text: …` on node 3,
 * `edges[1].targetId: …` on the edge's source node, `mocks.lookup: …` on node `lookup`; the rest
 * (name, trigger) stay general.
 */
export function placeProblems(
  problems: string[],
  d: Draft,
): { byNode: Map<string, string[]>; general: string[] } {
  const byNode = new Map<string, string[]>();
  const general: string[] = [];
  const put = (id: string | undefined, text: string) => {
    if (id === undefined) general.push(text);
    else byNode.set(id, [...(byNode.get(id) ?? []), text]);
  };
  for (const problem of problems) {
    const node = /^nodes\[(\d+)\]/.exec(problem);
    const edge = /^edges\[(\d+)\]/.exec(problem);
    const mock = /^mocks\.([A-Za-z0-9_-]+)/.exec(problem);
    if (node) put(d.nodes[Number(node[1])]?.id, problem);
    else if (edge) put(d.edges[Number(edge[1])]?.sourceId, problem);
    else if (mock) put(d.nodes.some((n) => n.id === mock[1]) ? mock[1] : undefined, problem);
    else general.push(problem);
  }
  return { byNode, general };
}
