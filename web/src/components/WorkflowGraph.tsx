import '@xyflow/react/dist/style.css';
import { Graph, layout } from '@dagrejs/dagre';
import { Background, Controls, type Edge, MarkerType, type Node, ReactFlow } from '@xyflow/react';
import { useMemo } from 'react';
import type { components } from '../api/schema';

type WorkflowNode = components['schemas']['WorkflowNode'];
type WorkflowEdge = components['schemas']['Workflow']['edges'][number];
type Step = components['schemas']['WorkflowStep'];

const NODE_WIDTH = 200;
const NODE_HEIGHT = 64;

/** Border colour of a node by its step in the selected execution (dark shades: readable text). */
const STEP_COLORS: Record<string, string> = {
  completed: 'var(--mantine-color-green-8)',
  failed: 'var(--mantine-color-red-8)',
  skipped: 'var(--mantine-color-gray-6)',
  cancelled: 'var(--mantine-color-gray-6)',
  running: 'var(--mantine-color-blue-8)',
};

/** One line saying what a node does, from its config. */
function nodeSummary(node: WorkflowNode): string {
  const c = (node.config ?? {}) as Record<string, unknown>;
  const text = (c.text ?? c.prompt ?? c.tool ?? c.toolName ?? c.expression ?? '') as unknown;
  const s = typeof text === 'string' ? text : JSON.stringify(text);
  return s.length > 48 ? `${s.slice(0, 47)}…` : s;
}

/** Positions from dagre (top to bottom), in React Flow's top-left coordinates. */
export function layoutGraph(
  nodes: WorkflowNode[],
  edges: WorkflowEdge[],
): Map<string, { x: number; y: number }> {
  const g = new Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 56 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) g.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of edges) {
    if (g.hasNode(edge.sourceId) && g.hasNode(edge.targetId)) g.setEdge(edge.sourceId, edge.targetId);
  }
  layout(g);
  const positions = new Map<string, { x: number; y: number }>();
  for (const node of nodes) {
    const p = g.node(node.id);
    positions.set(node.id, { x: (p?.x ?? 0) - NODE_WIDTH / 2, y: (p?.y ?? 0) - NODE_HEIGHT / 2 });
  }
  return positions;
}

/**
 * A workflow's graph, laid out by dagre and drawn by React Flow; with an execution's steps, each
 * node shows its status (colour and label) and its result on hover/focus.
 */
export function WorkflowGraph(props: {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  steps?: Step[];
  currentNodes?: string[];
  onSelect?(nodeId: string): void;
}) {
  const { nodes, edges, steps, currentNodes } = props;
  const flow = useMemo(() => {
    const positions = layoutGraph(nodes, edges);
    const stepOf = new Map(steps?.map((s) => [s.nodeId, s]));
    const flowNodes: Node[] = nodes.map((node) => {
      const step = stepOf.get(node.id);
      const status = currentNodes?.includes(node.id) ? 'running' : step?.status;
      const summary = nodeSummary(node);
      return {
        id: node.id,
        position: positions.get(node.id) ?? { x: 0, y: 0 },
        data: {
          label: (
            <div data-testid={`graph-node-${node.id}`} data-status={status ?? 'none'}>
              <strong>{node.id}</strong> <span style={{ fontSize: 11 }}>({node.type})</span>
              {summary ? (
                <div style={{ fontSize: 11, overflow: 'hidden', textOverflow: 'ellipsis' }}>{summary}</div>
              ) : null}
              {status ? <div style={{ fontSize: 11, fontWeight: 700 }}>{status}</div> : null}
            </div>
          ),
        },
        ariaLabel: `${node.id}, ${node.type}${status ? `, ${status}` : ''}`,
        style: {
          width: NODE_WIDTH,
          minHeight: NODE_HEIGHT,
          padding: 6,
          borderWidth: 2,
          borderColor: status ? STEP_COLORS[status] : 'var(--mantine-color-gray-7)',
          borderStyle: status === 'skipped' || status === 'cancelled' ? 'dashed' : 'solid',
          color: 'var(--mantine-color-black)',
        },
        type: node.type === 'start' ? 'input' : node.type === 'end' ? 'output' : 'default',
        connectable: false,
        draggable: false,
      };
    });
    const flowEdges: Edge[] = edges.map((edge, i) => ({
      id: `e${i}-${edge.sourceId}-${edge.targetId}`,
      source: edge.sourceId,
      target: edge.targetId,
      label: edge.condition !== undefined ? String(edge.condition) : undefined,
      markerEnd: { type: MarkerType.ArrowClosed },
      focusable: false,
    }));
    return { flowNodes, flowEdges };
  }, [nodes, edges, steps, currentNodes]);

  return (
    <section style={{ height: 460, width: '100%' }} data-testid="workflow-graph" aria-label="Workflow graph">
      <ReactFlow
        nodes={flow.flowNodes}
        edges={flow.flowEdges}
        fitView
        nodesConnectable={false}
        nodesDraggable={false}
        elementsSelectable
        onNodeClick={(_event, node) => props.onSelect?.(node.id)}
        minZoom={0.2}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </section>
  );
}
