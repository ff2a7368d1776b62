import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiCallError, api, environmentStore, unwrap } from '../../../api/client';
import { layoutGraph } from '../../../components/WorkflowGraph';
import { useStoredValue } from '../../../store';
import type { NodeMarks, Point } from './BuilderCanvas';
import {
  type AddableType,
  addNode,
  connect,
  type Draft,
  definitionOf,
  disconnect,
  placeProblems,
  removeNode,
  setConfig,
  type WorkflowEdge,
} from './draft';

/**
 * The builder's state: the draft (what Save sends), each node's place on the canvas (the console's
 * own; the API keeps no layout), the selection, the API's problems placed on their nodes, and the
 * last dry run's path. Saving creates the workflow (then the page moves to its address) or updates
 * it (one more version).
 */
export function useBuilder(workflowId: string | null, initial: Draft) {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [draft, setDraft] = useState(initial);
  const [positions, setPositions] = useState(() => layoutGraph(initial.nodes, initial.edges));
  const [selected, setSelected] = useState<string | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [path, setPath] = useState<Map<string, string>>(new Map());
  const [dirty, setDirty] = useState(false);

  const change = useCallback((next: (d: Draft) => Draft) => {
    setDraft(next);
    setDirty(true);
    setPath(new Map()); // a dry run's colours describe the graph it ran, not this one
  }, []);

  const actions = useMemo(
    () => ({
      add(type: AddableType) {
        const { draft: next, id } = addNode(draft, type);
        const lowest = Math.max(0, ...[...positions.values()].map((q) => q.y));
        setPositions(new Map(positions).set(id, { x: 40 + ((positions.size * 40) % 240), y: lowest + 110 }));
        change(() => next);
        setSelected(id);
      },
      remove(id: string) {
        change((d) => removeNode(d, id));
        setSelected(null);
      },
      configure(id: string, config: Record<string, unknown>) {
        change((d) => setConfig(d, id, config));
        // the node's problems were about its config as it was: they go until the next check
        setProblems((ps) => ps.filter((p) => !placeProblems([p], draft).byNode.has(id)));
      },
      connect: (s: string, t: string, c?: 'true' | 'false') => change((d) => connect(d, s, t, c)),
      disconnect: (e: WorkflowEdge) => change((d) => disconnect(d, e)),
      move: (id: string, to: Point) => setPositions((p) => new Map(p).set(id, to)),
      edit: (patch: Partial<Draft>) => change((d) => ({ ...d, ...patch })),
      /** A version from the history, as the draft (saved as a new version by Save). */
      load(d: Draft) {
        setDraft(d);
        setPositions(layoutGraph(d.nodes, d.edges));
        setSelected(null);
        setProblems([]);
        setPath(new Map());
        setDirty(true);
      },
    }),
    [change, draft, positions],
  );

  const save = useMutation({
    mutationFn: async () => {
      const body = definitionOf(draft);
      if (!workflowId) return unwrap(await api.POST('/api/v2/developers/workflows', { body })).data;
      return unwrap(
        await api.PUT('/api/v2/developers/workflows/{id}', { params: { path: { id: workflowId } }, body }),
      ).data;
    },
    onMutate: () => setProblems([]),
    onSuccess: (saved) => {
      setDirty(false);
      queryClient.setQueryData(['workflow', environment, saved.id], saved);
      queryClient.invalidateQueries({ queryKey: ['workflows'] });
      queryClient.invalidateQueries({ queryKey: ['workflow-versions', environment, saved.id] });
      if (!workflowId) navigate(`/workflows/${saved.id}/edit`, { replace: true });
    },
    onError: (error) => {
      if (error instanceof ApiCallError) setProblems(error.validationErrors);
    },
  });

  const placed = useMemo(() => placeProblems(problems, draft), [problems, draft]);
  const marks = useMemo(() => {
    const m = new Map<string, NodeMarks>();
    for (const n of draft.nodes) {
      const status = path.get(n.id);
      const nodeProblems = placed.byNode.get(n.id);
      if (status || nodeProblems) m.set(n.id, { status, problems: nodeProblems });
    }
    return m;
  }, [draft.nodes, path, placed]);

  return {
    draft,
    positions,
    selected,
    setSelected,
    dirty,
    problems,
    setProblems,
    placed,
    marks,
    /** A dry run's steps: each node coloured by how it went (completed, skipped, failed). */
    showPath: (steps: { nodeId: string; status: string }[]) =>
      setPath(new Map(steps.map((s) => [s.nodeId, s.status]))),
    save,
    ...actions,
  };
}
export type Builder = ReturnType<typeof useBuilder>;
