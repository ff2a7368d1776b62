import { graphProblems } from '../src/voice-workflows/graph';
import {
  addNode,
  connect,
  definitionOf,
  disconnect,
  emptyDraft,
  placeProblems,
  removeNode,
  setConfig,
} from '../web/src/pages/workflows/builder/draft';

/** The console's workflow builder edits a draft with these; what it saves must be what the API checks. */
describe('the workflow builder’s draft', () => {
  it('builds a condition with two branches that the API’s rules accept', () => {
    let d = emptyDraft();
    const cond = addNode(d, 'condition');
    d = setConfig(cond.draft, cond.id, { expression: 'input.vip == true' });
    const yes = addNode(d, 'speak');
    d = setConfig(yes.draft, yes.id, { text: 'Hello VIP.' });
    const no = addNode(d, 'speak');
    d = setConfig(no.draft, no.id, { text: 'Hello.' });
    d = disconnect(d, { sourceId: 'start', targetId: 'end' });
    d = connect(d, 'start', cond.id);
    d = connect(d, cond.id, yes.id, 'true');
    d = connect(d, cond.id, no.id, 'false');
    d = connect(d, yes.id, 'end');
    d = connect(d, no.id, 'end');
    expect(graphProblems(definitionOf(d))).toEqual([]);
    expect(d.edges.filter((e) => e.sourceId === cond.id).map((e) => [e.targetId, e.condition])).toEqual([
      ['speak_1', 'true'],
      ['speak_2', 'false'],
    ]);
  });

  it('keeps one edge per outcome of a condition, never joins a node to itself, and removes a node with its edges', () => {
    let d = addNode(emptyDraft(), 'condition').draft;
    d = connect(d, 'condition_1', 'end', 'true');
    d = connect(d, 'condition_1', 'start', 'true');
    expect(d.edges.filter((e) => e.sourceId === 'condition_1')).toEqual([
      { sourceId: 'condition_1', targetId: 'start', condition: 'true' },
    ]);
    expect(connect(d, 'end', 'end')).toBe(d);
    expect(connect(d, 'start', 'end').edges.filter((e) => e.sourceId === 'start')).toHaveLength(1);
    const gone = removeNode(d, 'condition_1');
    expect(gone.nodes.map((n) => n.id)).toEqual(['start', 'end']);
    expect(gone.edges).toEqual([{ sourceId: 'start', targetId: 'end' }]);
  });

  it('places the API’s problems on the node they concern', () => {
    const d = addNode(emptyDraft(), 'speak').draft;
    const placed = placeProblems(
      [
        'nodes[2].config.text: must not be empty',
        'edges[0].targetId: no node "ghost"',
        'mocks.speak_1: only mcp_call and llm_prompt nodes take mocks (this is speak)',
        'name: must not be empty',
      ],
      d,
    );
    expect(Object.fromEntries(placed.byNode)).toEqual({
      speak_1: [
        'nodes[2].config.text: must not be empty',
        'mocks.speak_1: only mcp_call and llm_prompt nodes take mocks (this is speak)',
      ],
      start: ['edges[0].targetId: no node "ghost"'],
    });
    expect(placed.general).toEqual(['name: must not be empty']);
  });
});
