import '@xyflow/react/dist/style.css';
import {
  applyNodeChanges,
  Background,
  type Connection,
  Controls,
  type Edge,
  Handle,
  MarkerType,
  type Node,
  type NodeChange,
  type NodeProps,
  Position,
  ReactFlow,
  useReactFlow,
} from '@xyflow/react';
import { memo, useCallback, useEffect, useMemo, useState } from 'react';
import { type Draft, TYPE_LABELS, type WorkflowEdge } from './draft';

export type Point = { x: number; y: number };
/** How a node looks beyond its config: a dry run's status, the API's problems, selection. */
export interface NodeMarks {
  status?: string;
  problems?: string[];
}
type NodeData = { nodeId: string; type: string; summary: string; marks: NodeMarks; selected: boolean };

const WIDTH = 200;
const STATUS_COLORS: Record<string, string> = {
  completed: 'var(--mantine-color-green-8)',
  failed: 'var(--mantine-color-red-8)',
  skipped: 'var(--mantine-color-gray-6)',
};

function summaryOf(config: Record<string, unknown> | undefined): string {
  const c = config ?? {};
  const raw =
    c.text ??
    c.expression ??
    c.prompt ??
    c.digits ??
    c.destination ??
    c.closingLine ??
    (c.toolName ? `${c.toolName}` : '');
  const s = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}

/** One node: its id, type and what it does; handles to connect it (a condition has a true and a false one). */
const BuilderNodeView = memo(function BuilderNodeView({ data }: NodeProps<Node<NodeData>>) {
  const { nodeId, type, summary, marks, selected } = data;
  const problems = marks.problems?.length ?? 0;
  const border = problems
    ? 'var(--mantine-color-red-8)'
    : marks.status
      ? STATUS_COLORS[marks.status]
      : 'var(--mantine-color-gray-7)';
  return (
    <div
      data-testid={`builder-node-${nodeId}`}
      data-status={marks.status ?? 'none'}
      data-problems={problems}
      style={{
        width: WIDTH,
        padding: 6,
        background: 'white',
        color: 'black',
        borderRadius: 4,
        border: `${problems || selected ? 3 : 2}px ${marks.status === 'skipped' ? 'dashed' : 'solid'} ${border}`,
        outline: selected ? '2px solid var(--mantine-color-blue-7)' : undefined,
        fontSize: 12,
      }}
    >
      {type !== 'start' ? <Handle type="target" position={Position.Top} /> : null}
      <strong>{nodeId}</strong> ({TYPE_LABELS[type] ?? type})
      {summary ? (
        <div style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{summary}</div>
      ) : null}
      {marks.status ? <div style={{ fontWeight: 700 }}>{marks.status}</div> : null}
      {problems ? (
        <div style={{ fontWeight: 700, color: 'var(--mantine-color-red-9)' }}>
          {problems} {problems === 1 ? 'problem' : 'problems'}
        </div>
      ) : null}
      {type === 'condition' ? (
        <>
          <Handle type="source" id="true" position={Position.Bottom} style={{ left: '25%' }} />
          <Handle type="source" id="false" position={Position.Bottom} style={{ left: '75%' }} />
          <div style={{ display: 'flex', justifyContent: 'space-around', fontSize: 10 }}>
            <span>true</span>
            <span>false</span>
          </div>
        </>
      ) : type !== 'end' ? (
        <Handle type="source" position={Position.Bottom} />
      ) : null}
    </div>
  );
});

const NODE_TYPES = { builder: BuilderNodeView };

/** Brings every node into view when one is added or removed (a new node may land off screen). */
function FitOnCount({ count }: { count: number }) {
  const flow = useReactFlow();
  // biome-ignore lint/correctness/useExhaustiveDependencies: a change of the count is what fits the view again
  useEffect(() => {
    // after React Flow has measured the new node
    const frame = requestAnimationFrame(() => flow.fitView({ duration: 0 }));
    return () => cancelAnimationFrame(frame);
  }, [count, flow]);
  return null;
}

/**
 * The builder's graph: nodes dragged freely (their place kept when the drag ends), joined by dragging
 * from a node's bottom handle to another's top; from a condition, the left handle is `true` and the
 * right `false`. A selected edge is removed with Delete or Backspace. While a node is dragged only
 * React Flow's own state changes, so the rest of the page does not re-render at every frame.
 */
export function BuilderCanvas(props: {
  draft: Draft;
  positions: Map<string, Point>;
  marks: Map<string, NodeMarks>;
  selected: string | null;
  onSelect(id: string | null): void;
  onMove(id: string, to: Point): void;
  onConnect(sourceId: string, targetId: string, condition?: 'true' | 'false'): void;
  onDisconnect(edge: WorkflowEdge): void;
}) {
  const { draft, positions, marks, selected, onSelect, onMove, onConnect, onDisconnect } = props;
  const built = useMemo<Node<NodeData>[]>(
    () =>
      draft.nodes.map((n) => ({
        id: n.id,
        type: 'builder',
        position: positions.get(n.id) ?? { x: 0, y: 0 },
        data: {
          nodeId: n.id,
          type: n.type,
          summary: summaryOf(n.config),
          marks: marks.get(n.id) ?? {},
          selected: n.id === selected,
        },
        ariaLabel: `${n.id}, ${TYPE_LABELS[n.type] ?? n.type}`,
      })),
    [draft.nodes, positions, marks, selected],
  );
  const [nodes, setNodes] = useState(built);
  useEffect(() => setNodes(built), [built]);
  const onNodesChange = useCallback(
    (changes: NodeChange<Node<NodeData>>[]) =>
      // removal goes through the panel (so that the draft's edges go too): only moves and selection here
      setNodes((ns) =>
        applyNodeChanges(
          changes.filter((c) => c.type !== 'remove'),
          ns,
        ),
      ),
    [],
  );
  const edges = useMemo<Edge[]>(
    () =>
      draft.edges.map((e) => ({
        id: `${e.sourceId}->${e.targetId}:${e.condition ?? ''}`,
        source: e.sourceId,
        target: e.targetId,
        sourceHandle: e.condition ?? null,
        label: e.condition,
        markerEnd: { type: MarkerType.ArrowClosed },
        data: { edge: e },
      })),
    [draft.edges],
  );
  const connectEdge = useCallback(
    (c: Connection) => {
      const handle = c.sourceHandle === 'true' || c.sourceHandle === 'false' ? c.sourceHandle : undefined;
      onConnect(c.source, c.target, handle);
    },
    [onConnect],
  );
  return (
    <section
      style={{ height: 520, width: '100%' }}
      data-testid="builder-canvas"
      aria-label="Workflow builder graph"
    >
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodesChange={onNodesChange}
        onNodeDragStop={(_e, node) => onMove(node.id, node.position)}
        onNodeClick={(_e, node) => onSelect(node.id)}
        onPaneClick={() => onSelect(null)}
        onConnect={connectEdge}
        onEdgesDelete={(gone) => {
          for (const e of gone) onDisconnect((e.data as { edge: WorkflowEdge }).edge);
        }}
        deleteKeyCode={['Delete', 'Backspace']}
        fitView
        minZoom={0.2}
      >
        <Background />
        <Controls showInteractive={false} />
        <FitOnCount count={draft.nodes.length} />
      </ReactFlow>
    </section>
  );
}
