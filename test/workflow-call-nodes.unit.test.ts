import { type GraphNode, graphProblems, type WorkflowGraph } from '../src/voice-workflows/graph';
import { type InterpreterEffects, interpretGraph } from '../src/voice-workflows/interpreter';
import {
  addNode,
  connect,
  definitionOf,
  describeCallRequest,
  disconnect,
  emptyDraft,
  setConfig,
  TYPE_LABELS,
} from '../web/src/pages/workflows/builder/draft';

/** start → speak → `node` → end: the call node third, at nodes[2]. */
function withCallNode(node: GraphNode): WorkflowGraph {
  return {
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'say', type: 'speak', config: { text: 'One moment.' } },
      node,
      { id: 'end', type: 'end' },
    ],
    edges: [
      { sourceId: 'start', targetId: 'say' },
      { sourceId: 'say', targetId: node.id },
      { sourceId: node.id, targetId: 'end' },
    ],
  };
}

const effects: InterpreterEffects = {
  now: () => Date.now(),
  callTool: () => Promise.reject(new Error('no tools here')),
  prompt: () => Promise.reject(new Error('no model here')),
};

/**
 * The call nodes of voice workflows (issue 42 item 1: the call tools as node types): checked when a
 * graph is saved, and, when run, asking the call for their action as their step's result.
 */
describe('call nodes: validation', () => {
  it('accepts end_call, transfer_call and press_digits with good configs', () => {
    const good: GraphNode[] = [
      { id: 'bye', type: 'end_call' },
      { id: 'bye', type: 'end_call', config: {} },
      { id: 'bye', type: 'end_call', config: { closingLine: 'Goodbye {{trigger.name}}.' } },
      { id: 'desk', type: 'transfer_call', config: { destination: '+14155550188' } },
      {
        id: 'desk',
        type: 'transfer_call',
        config: { destination: 'sip:desk@pbx.example.com', mode: 'cold', summary: 'About {{say.result}}' },
      },
      { id: 'desk', type: 'transfer_call', config: { destination: 'persona_abc123', mode: 'warm' } },
      { id: 'keys', type: 'press_digits', config: { digits: '1#' } },
      { id: 'keys', type: 'press_digits', config: { digits: '*72A' } },
      { id: 'keys', type: 'press_digits', config: { digits: '{{trigger.digits}}#' } },
    ];
    for (const node of good) expect([node, graphProblems(withCallNode(node))]).toEqual([node, []]);
  });

  it('refuses bad configs, naming the field', () => {
    const problems = (node: GraphNode) => graphProblems(withCallNode(node));
    expect(problems({ id: 'keys', type: 'press_digits', config: { digits: '12x' } })).toEqual([
      'nodes[2].config.digits: must be 1 to 32 keys among 0-9, *, # and A-D (or a template such as {{trigger.digits}})',
    ]);
    expect(problems({ id: 'keys', type: 'press_digits', config: { digits: '1'.repeat(33) } })).toEqual([
      expect.stringMatching(/^nodes\[2\]\.config\.digits: must be 1 to 32 keys/),
    ]);
    expect(problems({ id: 'keys', type: 'press_digits' })).toEqual([
      expect.stringMatching(/^nodes\[2\]\.config: /),
    ]);
    expect(problems({ id: 'keys', type: 'press_digits', config: { digits: '{{later.result}}' } })).toEqual([
      'nodes[2].config.digits: later.result refers to no node "later"',
    ]);
    expect(problems({ id: 'desk', type: 'transfer_call', config: { destination: 'billing' } })).toEqual([
      'nodes[2].config.destination: must be a number in E.164 form (+14155550100), a SIP URI (sip:desk@pbx.example.com) or a persona id (persona_…)',
    ]);
    expect(
      problems({ id: 'desk', type: 'transfer_call', config: { destination: '+14155550188', mode: 'hot' } }),
    ).toEqual([expect.stringMatching(/^nodes\[2\]\.config\.mode: /)]);
    expect(problems({ id: 'desk', type: 'transfer_call', config: { mode: 'cold' } })).toEqual([
      expect.stringMatching(/^nodes\[2\]\.config\.destination: /),
    ]);
    expect(problems({ id: 'bye', type: 'end_call', config: { closingLine: 'Bye', reason: 'done' } })).toEqual(
      ['nodes[2].config.reason: unknown field'],
    );
    expect(problems({ id: 'bye', type: 'end_call', config: { closingLine: '' } })).toEqual([
      expect.stringMatching(/^nodes\[2\]\.config\.closingLine: /),
    ]);
  });
});

describe('call nodes: the interpreter', () => {
  const input = { trigger: { digits: '42', name: 'Sam' } };

  it('completes each call node with the action it asks, its templates rendered, without an effect', async () => {
    const ask = async (node: GraphNode, callActions?: ('end_call' | 'transfer_call' | 'press_digits')[]) => {
      const trace = await interpretGraph(withCallNode(node), input, effects, { callActions });
      expect(trace.status).toBe('completed');
      expect(trace.output.speech).toEqual(['One moment.']);
      return trace.steps.find((s) => s.nodeId === node.id)!.result;
    };
    const all = ['end_call', 'transfer_call', 'press_digits'] as const;
    expect(await ask({ id: 'bye', type: 'end_call' }, [...all])).toEqual({ call: 'end_call' });
    expect(
      await ask({ id: 'bye', type: 'end_call', config: { closingLine: 'Bye {{trigger.name}}.' } }, [
        'end_call',
      ]),
    ).toEqual({ call: 'end_call', closingLine: 'Bye Sam.' });
    expect(
      await ask({ id: 'keys', type: 'press_digits', config: { digits: '{{trigger.digits}}#' } }),
    ).toEqual({
      call: 'press_digits',
      digits: '42#',
    });
    expect(
      await ask(
        {
          id: 'desk',
          type: 'transfer_call',
          config: { destination: '+14155550188', summary: 'Caller {{trigger.name}}, said {{say.result}}' },
        },
        ['transfer_call'],
      ),
    ).toEqual({
      call: 'transfer_call',
      destination: '+14155550188',
      mode: 'cold',
      summary: 'Caller Sam, said One moment.',
    });
  });

  it('fails the step where the call cannot take the action, or the rendered keys are no keys', async () => {
    const failure = async (
      node: GraphNode,
      callActions: ('end_call' | 'press_digits')[],
      runInput = input,
    ) => {
      const trace = await interpretGraph(withCallNode(node), runInput, effects, { callActions });
      expect(trace.status).toBe('failed');
      expect(trace.steps.find((s) => s.nodeId === node.id)?.status).toBe('failed');
      expect(trace.steps.find((s) => s.nodeId === 'end')).toBeUndefined();
      return trace.error;
    };
    expect(await failure({ id: 'bye', type: 'end_call' }, [])).toEqual({
      nodeId: 'bye',
      message: 'end_call runs only on a phone call',
    });
    expect(
      await failure({ id: 'keys', type: 'press_digits', config: { digits: '1' } }, ['end_call']),
    ).toEqual({
      nodeId: 'keys',
      message: 'press_digits runs only on a phone call',
    });
    expect(
      (await failure({ id: 'desk', type: 'transfer_call', config: { destination: '+14155550188' } }, []))
        ?.message,
    ).toMatch(/^transfer_call runs only on a call that can be transferred/);
    const keys = { id: 'keys', type: 'press_digits', config: { digits: '{{trigger.digits}}' } };
    expect(await failure(keys, ['press_digits'], { trigger: { digits: 'one', name: 'Sam' } })).toEqual({
      nodeId: 'keys',
      message: 'digits "one" must be 1 to 32 keys among 0-9, *, # and A-D',
    });
  });
});

describe('call nodes in the console’s workflow builder', () => {
  it('adds the three call nodes, whose configured graph the API accepts, and describes what a dry run asked', () => {
    let d = disconnect(emptyDraft(), { sourceId: 'start', targetId: 'end' });
    const keys = addNode(d, 'press_digits');
    d = setConfig(keys.draft, keys.id, { digits: '{{trigger.digits}}' });
    const desk = addNode(d, 'transfer_call');
    d = setConfig(desk.draft, desk.id, { ...desk.draft.nodes.at(-1)!.config, destination: '+14155550188' });
    const bye = addNode(d, 'end_call');
    d = bye.draft;
    d = connect(connect(connect(d, 'start', keys.id), keys.id, desk.id), desk.id, bye.id);
    d = connect(d, bye.id, 'end');
    expect(d.nodes.map((n) => [n.id, TYPE_LABELS[n.type]])).toEqual([
      ['start', 'Start'],
      ['end', 'End'],
      ['press_digits_1', 'Press keys'],
      ['transfer_call_1', 'Transfer call'],
      ['end_call_1', 'Hang up'],
    ]);
    expect(graphProblems(definitionOf(d))).toEqual([]);
    // a fresh node's empty config is refused, on the node
    const empty = addNode(emptyDraft(), 'press_digits').draft;
    expect(graphProblems(definitionOf(empty))).toContainEqual(
      expect.stringMatching(/^nodes\[2\]\.config\.digits: /),
    );
    expect(describeCallRequest({ call: 'press_digits', digits: '1#' })).toBe('press 1#');
    expect(describeCallRequest({ call: 'transfer_call', destination: '+14155550188', mode: 'cold' })).toBe(
      'transfer (cold) to +14155550188',
    );
    expect(describeCallRequest({ call: 'end_call', closingLine: 'Bye.' })).toBe('hang up after “Bye.”');
    expect(describeCallRequest('Hello')).toBeNull();
  });
});
