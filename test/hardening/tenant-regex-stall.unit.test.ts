import type { TranscriptTurn } from '../../src/agent-tests/agent-test-types';
import { verdictsOf } from '../../src/agent-tests/expectations';
import { checkAnswer } from '../../src/call-analysis/analysis-prompt';
import { REGEX_TEXT_LIMIT } from '../../src/common/safe-regex';

/**
 * Tenant regular expressions could stall the shared worker: the write-time check refused nested
 * quantifiers only, so polynomial patterns such as `a*a*c` passed, and a reply of 3 000 `a`s
 * against three of them held the worker's event loop for 40 s. They now run on a linear-time
 * engine. Speed is not asserted against a clock: the cost of checking ten times the text must stay
 * about ten times the cost (a backtracking engine takes a hundred to a thousand times as long).
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

/** The least time, in ns, of five runs of `run` (after one to warm up). */
function leastTime(run: () => unknown): number {
  run();
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    run();
    least = Math.min(least, Number(process.hrtime.bigint() - start));
  }
  return least;
}

describe('tenant regular expressions cannot stall the shared worker', () => {
  it('a scenario with polynomial replyMatches patterns is checked over 3 000+ `a`s, its cost linear in the text', () => {
    const verdicts = scenarioVerdicts(REGEX_TEXT_LIMIT);
    expect(verdicts).toHaveLength(ABUSIVE.length * 2);
    expect(verdicts.filter((v) => v.passed).length).toBe(4); // `(a+)+$` and `^(a|a?)+$`, per turn and overall
    const ratio =
      leastTime(() => scenarioVerdicts(REGEX_TEXT_LIMIT)) / leastTime(() => scenarioVerdicts(SHORT));
    expect(ratio).toBeLessThan(40);
  });

  it("an analysis data schema's polynomial patterns are checked over 3 000+ `a`s, the cost linear in the text", () => {
    // an answer's data is at most 16 KiB
    const checks = analysisChecks(15_000);
    expect(checks.filter((c) => c.ok)).toHaveLength(2);
    const ratio = leastTime(() => analysisChecks(15_000)) / leastTime(() => analysisChecks(1_500));
    expect(ratio).toBeLessThan(40);
  });
});
