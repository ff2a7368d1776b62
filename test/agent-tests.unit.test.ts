import type { TranscriptTurn } from '../src/agent-tests/agent-test-types';
import {
  checkConversation,
  checkTurn,
  isSubset,
  latenciesOf,
  verdictsOf,
} from '../src/agent-tests/expectations';
import { TEST_TURN_ROUTES } from '../src/agent-tests/scenario.schemas';
import { regexProblem } from '../src/common/safe-regex';
import { TURN_ROUTES } from '../src/sessions/statuses';

const turn = (over: Partial<TranscriptTurn> = {}): TranscriptTurn => ({
  index: 1,
  text: 'Where is my order A-1?',
  reply: 'Your order A-1 has Shipped.',
  route: 'llm',
  toolCalls: [
    {
      name: 'lookup_order',
      arguments: { orderId: 'A-1', opts: { full: true } },
      success: true,
      mocked: true,
    },
  ],
  latencyMs: 120,
  error: null,
  ...over,
});

describe('agent test expectations', () => {
  it.each([
    ['toolCalled by name', { type: 'toolCalled', name: 'lookup_order' }, true],
    [
      'toolCalled with a subset of its arguments',
      { type: 'toolCalled', name: 'lookup_order', arguments: { opts: { full: true } } },
      true,
    ],
    [
      'toolCalled with other arguments',
      { type: 'toolCalled', name: 'lookup_order', arguments: { orderId: 'B-2' } },
      false,
    ],
    ['toolCalled, a tool not called', { type: 'toolCalled', name: 'cancel_order' }, false],
    ['toolNotCalled, a tool not called', { type: 'toolNotCalled', name: 'cancel_order' }, true],
    ['toolNotCalled, a tool called', { type: 'toolNotCalled', name: 'lookup_order' }, false],
    ['route, the same', { type: 'route', route: 'llm' }, true],
    ['route, another', { type: 'route', route: 'workflow' }, false],
    ['replyContains, any case', { type: 'replyContains', text: 'shipped' }, true],
    ['replyContains, case-sensitive', { type: 'replyContains', text: 'shipped', caseSensitive: true }, false],
    ['replyContains, absent', { type: 'replyContains', text: 'delivered' }, false],
    ['replyMatches', { type: 'replyMatches', pattern: 'order [A-Z]-\\d+', flags: 'i' }, true],
    ['replyMatches, no match', { type: 'replyMatches', pattern: '^Sorry' }, false],
    ['refused, answered', { type: 'refused' }, false],
    ['maxLatencyMs, within', { type: 'maxLatencyMs', ms: 120 }, true],
    ['maxLatencyMs, over', { type: 'maxLatencyMs', ms: 119 }, false],
  ] as const)('%s', (_what, expectation, passed) => {
    const check = checkTurn(expectation as never, turn());
    expect(check.passed).toBe(passed);
    expect(check.reason.length).toBeGreaterThan(0);
  });

  it("knows the session engine's routes", () => {
    expect([...TEST_TURN_ROUTES]).toEqual([...TURN_ROUTES]);
  });

  it('refused passes on a refusal', () => {
    expect(checkTurn({ type: 'refused' }, turn({ route: 'refusal' })).passed).toBe(true);
  });

  it('matches arguments as a subset, deeply', () => {
    expect(isSubset({ a: 1 }, { a: 1, b: 2 })).toBe(true);
    expect(isSubset({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 2, d: 3 }] } })).toBe(true);
    expect(isSubset({ a: [1] }, { a: [1, 2] })).toBe(false);
    expect(isSubset({ a: '1' }, { a: 1 })).toBe(false);
    expect(isSubset({ a: null }, {})).toBe(false);
  });

  it('holds over a conversation when some turn (or, for toolNotCalled and maxLatencyMs, every turn) meets it', () => {
    const transcript = [turn(), turn({ index: 2, reply: 'Anything else?', toolCalls: [], latencyMs: 900 })];
    expect(checkConversation({ type: 'replyContains', text: 'anything' }, transcript).passed).toBe(true);
    expect(checkConversation({ type: 'toolNotCalled', name: 'lookup_order' }, transcript)).toMatchObject({
      passed: false,
      reason: expect.stringContaining('turn 1'),
    });
    expect(checkConversation({ type: 'maxLatencyMs', ms: 500 }, transcript)).toMatchObject({
      passed: false,
      reason: expect.stringContaining('turn 2'),
    });
    expect(checkConversation({ type: 'maxLatencyMs', ms: 1000 }, transcript).passed).toBe(true);
    expect(checkConversation({ type: 'refused' }, transcript).passed).toBe(false);
    expect(checkConversation({ type: 'route', route: 'llm' }, []).passed).toBe(false);
  });

  it('takes a judge verdict from its grade, and fails a judge without one', () => {
    const judge = { type: 'judge', rubric: 'Polite' } as const;
    expect(checkConversation(judge, [turn()], { passed: true, reason: 'polite' })).toEqual({
      passed: true,
      reason: 'polite',
    });
    expect(checkConversation(judge, [turn()], { passed: false, reason: 'rude' }).passed).toBe(false);
    expect(checkConversation(judge, [turn()]).passed).toBe(false);
  });

  it('gives each scripted turn its own verdicts, then the conversation', () => {
    const verdicts = verdictsOf(
      {
        turns: [{ expect: [{ type: 'route', route: 'llm' }] }, { expect: [{ type: 'refused' }] }],
        expectations: [{ type: 'judge', rubric: 'r' }],
      },
      [turn()],
      { 0: { passed: true, reason: 'fine' } },
    );
    expect(verdicts.map((v) => [v.turn, v.passed, v.reason])).toEqual([
      [1, true, 'the turn was answered by llm'],
      [2, false, 'the turn was not taken'],
      [null, true, 'fine'],
    ]);
  });

  it('sums up latencies', () => {
    expect(latenciesOf([turn({ latencyMs: 30 }), turn({ latencyMs: 10 }), turn({ latencyMs: 20 })])).toEqual({
      turnsMs: [30, 10, 20],
      p50Ms: 20,
      maxMs: 30,
    });
    expect(latenciesOf([])).toEqual({ turnsMs: [], p50Ms: null, maxMs: null });
  });
});

describe('replyMatches patterns are checked by the engine that runs them', () => {
  it.each([['(a)\\1'], ['(?<n>a)\\k<n>'], ['('], ['(?=a)b'], ['(?<!a)b'], ['.{1000}']])(
    'refuses %s',
    (pattern) => {
      expect(regexProblem(pattern)).not.toBeNull();
    },
  );

  it('refuses flags given twice', () => {
    expect(regexProblem('a', 'ii')).toMatch(/not a valid regular expression/);
  });

  it.each([
    ['order [A-Z]-\\d+'],
    ['^(?:hello|hi)\\b'],
    ['(?:abc)*'],
    ['[(+*]+'],
    ['\\(a+\\)+'],
    ['shipp(ed|ing)'],
    ['a{2,5}b?'],
    // linear on RE2, so no longer refused: they cannot backtrack
    ['(a+)+$'],
    ['(a*)*b'],
    ['(?:a|a)*'],
    ['(x+x+)+y'],
  ])('accepts %s', (pattern) => {
    expect(regexProblem(pattern)).toBeNull();
  });
});
