import { compileExpression, evaluateExpression } from '../src/voice-workflows/expressions';
import { graphProblems, type WorkflowGraph } from '../src/voice-workflows/graph';
import { interpretGraph } from '../src/voice-workflows/interpreter';
import { commandScore, matchCommand } from '../src/voice-workflows/matching';
import { renderArguments, renderText } from '../src/voice-workflows/templates';

const scope = {
  input: { orderId: 'A-1', vip: true, total: 42.5, tags: ['gift', 'rush'] },
  results: {
    lookup: {
      order: {
        status: 'shipped',
        items: [
          { sku: 'X1', qty: 2 },
          { sku: 'Y2', qty: 1 },
        ],
      },
      count: 3,
    },
    'order-check': { ok: true },
    greeting: 'hello',
  },
};
const ids = ['start', 'lookup', 'order-check', 'greeting', 'cond'];
const ev = (expression: string) => evaluateExpression(expression, ids, scope);

describe('condition expressions', () => {
  it('reads nested result paths, list indexes and the input', () => {
    expect(ev('lookup.result.order.status == "shipped"')).toBe(true);
    expect(ev("lookup.result.order.items[1].sku == 'Y2'")).toBe(true);
    expect(ev('lookup.result.order.items.0.qty >= 2')).toBe(true);
    expect(ev('lookup.result.count > 2 && input.total < 50')).toBe(true);
    expect(ev('input.vip && !(lookup.result.count == 4)')).toBe(true);
    expect(ev('order-check.result.ok == true')).toBe(true);
    expect(ev('greeting.result == "hello"')).toBe(true);
    expect(ev('lookup.result.order.items.length == 2')).toBe(true);
  });

  it('supports in for lists (and substrings), or, comparisons and null', () => {
    expect(ev('lookup.result.order.status in ["shipped", "delivered"]')).toBe(true);
    expect(ev('"rush" in input.tags')).toBe(true);
    expect(ev('"ell" in greeting.result')).toBe(true);
    expect(ev('input.orderId in ["B-2"] || input.total != 42.5')).toBe(false);
    expect(ev('input.total <= -1')).toBe(false);
    expect(ev('input.nothing == null')).toBe(true);
  });

  it('treats a missing path as null, never an exception', () => {
    expect(ev('lookup.result.order.carrier.name == null')).toBe(true);
    expect(ev('lookup.result.order.carrier.name == "UPS"')).toBe(false);
    expect(ev('lookup.result.order.items[7].sku > 3')).toBe(false);
    expect(ev('cond.result.x')).toBe(false); // a node that has not run
    expect(ev('input.missing.deeper.still')).toBe(false);
    expect(ev('!input.missing')).toBe(true);
  });

  it('refuses anything outside the language', () => {
    const bad = (e: string) => compileExpression(e, ids);
    expect(bad('constructor.constructor("return process")()')).toMatch(/function calls are not allowed/);
    expect(bad('lookup.result.a + 1 > 2')).toMatch(/unsupported operator \+/);
    expect(bad('this.x')).toMatch(/this is not allowed/);
    expect(bad('lookup.status == 1')).toMatch(/address a node's result as lookup\.result/);
    expect(bad('lookup.result[input.i]')).toMatch(/only literal indexes/);
    expect(bad('a == 1; b == 2')).toMatch(/one expression only|cannot parse/);
    expect(bad('lookup.result ==')).toMatch(/cannot parse/);
    expect(bad('')).toBe('must not be empty');
  });
});

describe('templates', () => {
  it('renders results, nested paths and input; objects as JSON; missing as empty', () => {
    expect(renderText('Order {{input.orderId}} is {{lookup.result.order.status}}.', scope)).toBe(
      'Order A-1 is shipped.',
    );
    expect(renderText('{{ lookup.result.order.items[0] }}', scope)).toBe('{"sku":"X1","qty":2}');
    expect(renderText('[{{lookup.result.order.nope}}] [{{ghost.result}}]', scope)).toBe('[] []');
    expect(renderText('{{greeting.result}} {{input.total}}', scope)).toBe('hello 42.5');
  });

  it('renders arguments recursively; a lone placeholder keeps its type', () => {
    expect(
      renderArguments(
        {
          id: '{{input.orderId}}',
          qty: '{{lookup.result.order.items[0].qty}}',
          nested: { say: 'n={{lookup.result.count}}', list: ['{{input.vip}}', 7] },
          missing: '{{input.nope}}',
        },
        scope,
      ),
    ).toEqual({ id: 'A-1', qty: 2, nested: { say: 'n=3', list: [true, 7] }, missing: null });
  });
});

const g = (nodes: WorkflowGraph['nodes'], edges: WorkflowGraph['edges']): WorkflowGraph => ({ nodes, edges });

describe('definition validation', () => {
  it('accepts a valid graph', () => {
    expect(
      graphProblems(
        g(
          [
            { id: 'start', type: 'start' },
            { id: 'c', type: 'condition', config: { expression: 'input.x > 1' } },
            { id: 'yes', type: 'speak', config: { text: 'big {{start.result.x}}' } },
            { id: 'end', type: 'end' },
          ],
          [
            { sourceId: 'start', targetId: 'c' },
            { sourceId: 'c', targetId: 'yes', condition: 'true' },
            { sourceId: 'c', targetId: 'end', condition: 'false' },
            { sourceId: 'yes', targetId: 'end' },
          ],
        ),
      ),
    ).toEqual([]);
  });

  it('lists every problem at once', () => {
    const problems = graphProblems(
      g(
        [
          { id: 's1', type: 'start' },
          { id: 's2', type: 'start' },
          { id: 'dup', type: 'speak', config: { text: 'a' } },
          { id: 'dup', type: 'speak', config: { text: 'b' } },
          { id: 'bad id!', type: 'speak', config: { text: 'c' } },
          { id: 'x', type: 'teleport' },
          { id: 'nocfg', type: 'speak' },
          { id: 'cond', type: 'condition', config: { expression: 'later.result == 1' } },
          {
            id: 'later',
            type: 'speak',
            config: { text: '{{island.result}} {{nowhere.result}} {{secrets.X}}' },
          },
          { id: 'island', type: 'llm_prompt', config: { prompt: 'hi' } },
          { id: 'loop1', type: 'speak', config: { text: 'l1' } },
          { id: 'loop2', type: 'speak', config: { text: 'l2' } },
        ],
        [
          { sourceId: 's1', targetId: 'cond' },
          { sourceId: 'cond', targetId: 'later', condition: 'true' },
          { sourceId: 'later', targetId: 'ghost' },
          { sourceId: 's1', targetId: 'nocfg', condition: 'true' },
          { sourceId: 'loop1', targetId: 'loop2' },
          { sourceId: 'loop2', targetId: 'loop1' },
          { sourceId: 'nocfg', targetId: 's2' },
        ],
      ),
    );
    const expected = [
      'nodes[3].id: duplicate id "dup"',
      'nodes[4].id: must be 1-64 letters, digits, _ or -',
      'nodes[5].type: unknown node type "teleport"',
      'nodes[6].config: Invalid input',
      'nodes: exactly one start node is required (found 2)',
      'nodes: at least one end node is required',
      'edges[2].targetId: no node "ghost"',
      'edges[3].condition: only edges leaving a condition node carry a condition',
      'edges[6].targetId: the start node has no incoming edges',
      'nodes[7]: condition node "cond" needs exactly one "true" and one "false" out-edge (found 1 true, 0 false)',
      'edges: cycle loop1 → loop2 → loop1',
    ];
    for (const e of expected) expect(problems.some((p) => p.startsWith(e))).toBe(true);
  });

  it('checks reachability, ancestry of references and condition edges', () => {
    const problems = graphProblems(
      g(
        [
          { id: 'start', type: 'start' },
          { id: 'a', type: 'speak', config: { text: 'I say {{b.result}} and {{zzz.result}} and {{weird}}' } },
          { id: 'b', type: 'speak', config: { text: 'b' } },
          { id: 'c', type: 'condition', config: { expression: 'b.result == 1 || start.result.x' } },
          {
            id: 'm',
            type: 'mcp_call',
            config: { serverId: 'mcp_x', toolName: 't', arguments: { q: '{{c.result}}' } },
          },
          { id: 'orphan', type: 'speak', config: { text: 'alone' } },
          { id: 'end', type: 'end' },
        ],
        [
          { sourceId: 'start', targetId: 'a' },
          { sourceId: 'start', targetId: 'b' },
          { sourceId: 'a', targetId: 'c' },
          { sourceId: 'c', targetId: 'm', condition: 'true' },
          { sourceId: 'c', targetId: 'end' },
          { sourceId: 'm', targetId: 'end' },
          { sourceId: 'end', targetId: 'orphan' },
        ],
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'nodes[1].config.text: b.result refers to "b", which does not run before "a"',
        'nodes[1].config.text: zzz.result refers to no node "zzz"',
        'nodes[1].config.text: {{weird}} must be {{<nodeId>.result…}}, {{input…}} or {{trigger…}}',
        'nodes[3].config.expression: b.result refers to "b", which does not run before "c"',
        'edges[4].condition: required ("true" or "false") on edges leaving condition node "c"',
        'edges[6].sourceId: an end node has no outgoing edges',
      ]),
    );
    expect(problems.some((p) => p.includes('"orphan" is not reachable'))).toBe(false); // end → orphan reaches it
    const unreachable = graphProblems(
      g(
        [
          { id: 'start', type: 'start' },
          { id: 'end', type: 'end' },
          { id: 'lost', type: 'speak', config: { text: 'x' } },
        ],
        [{ sourceId: 'start', targetId: 'end' }],
      ),
    );
    expect(unreachable).toEqual(['nodes[2]: "lost" is not reachable from the start node']);
  });
});

describe('interpreter (no Temporal)', () => {
  const effects = {
    now: () => Date.now(),
    callTool: async () => ({ result: { ok: true } }),
    prompt: async (_n: unknown, text: string) => ({ result: `llm:${text}` }),
  };

  it('skips a branch not taken and still runs the join after it', async () => {
    const graph = g(
      [
        { id: 'start', type: 'start' },
        { id: 'c', type: 'condition', config: { expression: 'input.flag' } },
        { id: 'extra', type: 'speak', config: { text: 'extra' } },
        { id: 'join', type: 'speak', config: { text: 'joined {{extra.result}}' } },
        { id: 'end', type: 'end' },
      ],
      [
        { sourceId: 'start', targetId: 'c' },
        { sourceId: 'c', targetId: 'extra', condition: 'true' },
        { sourceId: 'c', targetId: 'join', condition: 'false' },
        { sourceId: 'extra', targetId: 'join' },
        { sourceId: 'join', targetId: 'end' },
      ],
    );
    const off = await interpretGraph(graph, { flag: false }, effects);
    expect(off.status).toBe('completed');
    expect(off.output.speech).toEqual(['joined ']);
    expect(off.steps.find((s) => s.nodeId === 'extra')?.status).toBe('skipped');
    const on = await interpretGraph(graph, { flag: true }, effects);
    expect(on.output.speech).toEqual(['extra', 'joined extra']);
  });

  it('skips a node whose every incoming edge was skipped', async () => {
    const graph = g(
      [
        { id: 'start', type: 'start' },
        { id: 'c', type: 'condition', config: { expression: 'false' } },
        { id: 'a', type: 'speak', config: { text: 'a' } },
        { id: 'after-a', type: 'llm_prompt', config: { prompt: 'p' } },
        { id: 'end', type: 'end' },
      ],
      [
        { sourceId: 'start', targetId: 'c' },
        { sourceId: 'c', targetId: 'a', condition: 'true' },
        { sourceId: 'c', targetId: 'end', condition: 'false' },
        { sourceId: 'a', targetId: 'after-a' },
        { sourceId: 'after-a', targetId: 'end' },
      ],
    );
    const trace = await interpretGraph(graph, {}, effects);
    expect(trace.steps.map((s) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['c', 'completed'],
      ['a', 'skipped'],
      ['after-a', 'skipped'],
      ['end', 'completed'],
    ]);
  });
});

describe('voice command matching', () => {
  const commands = [
    { item: 'status', command: 'check my order status' },
    { item: 'cancel', command: 'cancel my order' },
    { item: 'hours', command: 'what are your opening hours' },
  ];

  it('matches a command said inside a longer sentence, with plural or punctuation', () => {
    const m = matchCommand('Hey, can you check the status of my orders, please?', commands);
    expect(m.kind).toBe('match');
    expect(m.kind === 'match' && m.best.item).toBe('status');
    expect(commandScore('check my order status', 'check my order status')).toBe(1);
  });

  it('finds nothing for an unrelated utterance and lists the closest', () => {
    const m = matchCommand('tell me a joke about penguins', commands);
    expect(m.kind).toBe('none');
    expect(m.kind === 'none' && m.candidates.length).toBe(3);
  });

  it('reports a tie between equally good commands', () => {
    const m = matchCommand('cancel my order', [
      ...commands,
      { item: 'cancel2', command: 'Cancel my order!' },
    ]);
    expect(m.kind).toBe('tie');
    expect(m.kind === 'tie' && m.tied.map((c) => c.item).sort()).toEqual(['cancel', 'cancel2']);
  });

  it('prefers the longer command that is fully said', () => {
    const m = matchCommand('check order status', [
      { item: 'short', command: 'check order' },
      { item: 'long', command: 'check order status' },
    ]);
    expect(m.kind === 'match' && m.best.item).toBe('long');
  });
});
