import { RE2JS } from 're2js';
import type { TranscriptTurn } from '../../src/agent-tests/agent-test-types';
import { verdictsOf } from '../../src/agent-tests/expectations';
import { checkAnswer } from '../../src/call-analysis/analysis-prompt';
import { REGEX_MATCH_BUDGET, REGEX_TEXT_LIMIT, tenantRegex } from '../../src/common/safe-regex';

/**
 * Tenant regular expressions could stall the shared worker: the write-time check refused nested
 * quantifiers only, so polynomial patterns such as `a*a*c` passed, and a reply of 3 000 `a`s
 * against three of them held the worker's event loop for 40 s. They now run on a linear-time
 * engine. Speed is not asserted against a clock: the cost of checking ten times the text must stay
 * about ten times the cost (a backtracking engine takes a hundred to a thousand times as long). And
 * linear is not enough when one evaluation asks for a thousand costly matches: they share one
 * matching budget, and the matches past it are not run (counted, not timed).
 */
const ABUSIVE = [
  'a*a*c',
  '(a|aa)*c',
  'a*a*a*c',
  'a*a*[cd]',
  '(a|aa)*[cd]',
  'a*a*a*[cd]',
  '(a+)+$',
  '^(a|a?)+$',
];
const SHORT = REGEX_TEXT_LIMIT / 10;

const turn = (reply: string): TranscriptTurn => ({
  index: 1,
  text: reply,
  reply,
  route: 'llm',
  toolCalls: [],
  latencyMs: 10,
  error: null,
});

/** A scenario's verdicts with every abusive pattern as a replyMatches, over one reply of `n` `a`s. */
function scenarioVerdicts(n: number) {
  const expectations = ABUSIVE.map((pattern) => ({ type: 'replyMatches' as const, pattern }));
  return verdictsOf({ turns: [{ expect: expectations }], expectations }, [turn('a'.repeat(n))]);
}

/** A model's analysis answer, `n` `a`s in one field, checked against a data schema of each abusive pattern. */
function analysisChecks(n: number) {
  const data = JSON.stringify({ data: { code: 'a'.repeat(n) } });
  return ABUSIVE.map((pattern) =>
    checkAnswer({ dataSchema: { type: 'object', properties: { code: { type: 'string', pattern } } } }, data),
  );
}

/**
 * How much longer `long` takes than `short`: the least time of each over eleven runs (after three
 * to warm up), the two taken in turn, so a moment when the machine is busy slows both alike.
 */
function costRatio(long: () => unknown, short: () => unknown): number {
  const time = (run: () => unknown) => {
    const start = process.hrtime.bigint();
    run();
    return Number(process.hrtime.bigint() - start);
  };
  for (let i = 0; i < 3; i++) {
    long();
    short();
  }
  let [leastLong, leastShort] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  for (let i = 0; i < 11; i++) {
    leastShort = Math.min(leastShort, time(short));
    leastLong = Math.min(leastLong, time(long));
  }
  return leastLong / leastShort;
}

describe('tenant regular expressions cannot stall the shared worker', () => {
  afterEach(() => jest.restoreAllMocks());

  it('a scenario with polynomial replyMatches patterns is checked over 3 000+ `a`s, its cost linear in the text', () => {
    const verdicts = scenarioVerdicts(REGEX_TEXT_LIMIT);
    expect(verdicts).toHaveLength(ABUSIVE.length * 2);
    expect(verdicts.filter((v) => v.passed).length).toBe(4); // `(a+)+$` and `^(a|a?)+$`, per turn and overall
    const ratio = costRatio(
      () => scenarioVerdicts(REGEX_TEXT_LIMIT),
      () => scenarioVerdicts(SHORT),
    );
    expect(ratio).toBeLessThan(40);
  });

  it("an analysis data schema's polynomial patterns are checked over 3 000+ `a`s, the cost linear in the text", () => {
    // an answer's data is at most 16 KiB
    const checks = analysisChecks(15_000);
    expect(checks.filter((c) => c.ok)).toHaveLength(2);
    const ratio = costRatio(
      () => analysisChecks(15_000),
      () => analysisChecks(1_500),
    );
    expect(ratio).toBeLessThan(40);
  });

  it('many costly patterns over many long replies share one budget: past it they fail unchecked, without running', () => {
    // a pattern near the size limit, 50 times over 20 replies of 10 000 characters: 1 000 matches
    const pattern = '[\\p{L}\\s]{190}[cd]';
    const reply = 'ab '.repeat(REGEX_TEXT_LIMIT / 3);
    const costly = { type: 'replyMatches' as const, pattern, flags: 'u' };
    const scenario = (expectations: number, turns: number) => () =>
      verdictsOf(
        { expectations: Array.from({ length: expectations }, () => costly) },
        Array.from({ length: turns }, (_, i) => ({ ...turn(reply), index: i + 1 })),
      );
    const runs = jest.spyOn(RE2JS.prototype, 'test');
    const verdicts = scenario(50, 20)();
    const checked = Math.floor(REGEX_MATCH_BUDGET / (reply.length * tenantRegex(pattern, 'u').size));
    expect(checked).toBeGreaterThan(0);
    expect(runs).toHaveBeenCalledTimes(checked);
    expect(verdicts).toHaveLength(50);
    for (const verdict of verdicts)
      expect(verdict).toMatchObject({ passed: false, reason: expect.stringContaining('not checked') });
  });

  it("an analysis data schema's patterns share one budget per check: past it the data is not checked", () => {
    const pattern = '[\\p{L}\\s]{190}[cd]';
    const dataSchema = {
      type: 'object',
      properties: { x: { type: 'string', allOf: Array.from({ length: 40 }, () => ({ pattern })) } },
    };
    const x = 'ab '.repeat(5000);
    const runs = jest.spyOn(RE2JS.prototype, 'test');
    const checked = checkAnswer({ dataSchema }, JSON.stringify({ data: { x } }));
    expect(runs).toHaveBeenCalledTimes(
      Math.floor(REGEX_MATCH_BUDGET / (x.length * tenantRegex(pattern, 'u').size)),
    );
    expect(checked).toEqual({ ok: false, problems: [expect.stringMatching(/^data: not checked/)] });
  });
});
