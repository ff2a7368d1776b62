import { RE2JS } from 're2js';
import type { TranscriptTurn } from '../src/agent-tests/agent-test-types';
import { checkTurn } from '../src/agent-tests/expectations';
import { checkAnswer } from '../src/call-analysis/analysis-prompt';
import { regexProblem, tenantRegex } from '../src/common/safe-regex';
import { dataSchemaProblems, dataSchemaValidator } from '../src/personas/manifest-analysis';

const turn = (reply: string): TranscriptTurn => ({
  index: 1,
  text: 'hello',
  reply,
  route: 'llm',
  toolCalls: [],
  latencyMs: 10,
  error: null,
});
const schemaWith = (pattern: string) => ({
  type: 'object',
  properties: { code: { type: 'string', pattern } },
  patternProperties: { [`^x-${pattern}`]: { type: 'string' } },
});

/** Every call of JavaScript's own engine on a regex whose source is `source`, while `run` runs. */
function nativeRunsOf(source: string, run: () => void): number {
  const exec = jest.spyOn(RegExp.prototype, 'exec');
  try {
    run();
    return exec.mock.contexts.filter((regex) => (regex as RegExp).source === source).length;
  } finally {
    exec.mockRestore();
  }
}

describe('tenant patterns run on the linear-time engine (RE2)', () => {
  afterEach(() => jest.restoreAllMocks());

  it("a scenario's replyMatches is run by RE2, never by JavaScript's backtracking engine", () => {
    const re2 = jest.spyOn(RE2JS.prototype, 'test');
    const native = nativeRunsOf('shipp(ed|ing)', () => {
      expect(
        checkTurn({ type: 'replyMatches', pattern: 'shipp(ed|ing)', flags: 'i' }, turn('It SHIPPED')).passed,
      ).toBe(true);
    });
    expect(re2).toHaveBeenCalledWith('It SHIPPED');
    expect(native).toBe(0);
  });

  it("an analysis data schema's pattern and patternProperties keys are run by RE2", () => {
    const re2 = jest.spyOn(RE2JS.prototype, 'test');
    const native = nativeRunsOf('^A-[0-9]+$', () => {
      const validate = dataSchemaValidator(schemaWith('^A-[0-9]+$'));
      expect(validate({ code: 'A-12' })).toBe(true);
      expect(validate({ code: 'B-12' })).toBe(false);
    });
    expect(re2).toHaveBeenCalledWith('A-12');
    expect(re2).toHaveBeenCalledWith('code');
    expect(native).toBe(0);
  });

  // The patterns of the report: polynomial on a backtracking engine, linear on RE2
  const slow = ['a*a*c', '(a|aa)*c', 'a*a*a*c', '(a+)+$', '(a*)*b', '^(a|a?)+$', '(x+x+)+y'];
  const aaa = 'a'.repeat(5000);

  it.each(slow)('replyMatches %s is accepted and answers over 5 000 `a`s', (pattern) => {
    expect(regexProblem(pattern)).toBeNull();
    const check = checkTurn({ type: 'replyMatches', pattern }, turn(aaa));
    expect(check.passed).toBe(new RegExp(pattern).test('aaa') && pattern !== 'a*a*c');
  });

  it.each(slow)('a data schema pattern %s is accepted and checks 5 000 `a`s', (pattern) => {
    const schema = schemaWith(pattern);
    expect(dataSchemaProblems(schema)).toEqual([]);
    const checked = checkAnswer(
      { dataSchema: schema },
      JSON.stringify({ data: { code: aaa, [`x-${aaa}`]: aaa } }),
    );
    expect(checked.ok).toBe(pattern === '(a+)+$' || pattern === '^(a|a?)+$');
  });
});

describe('what RE2 cannot run is refused when written, naming why', () => {
  it.each([
    ['(a)\\1', '', /backreferences/],
    ['(?<n>a)\\k<n>', '', /backreferences/],
    ['(?=a)b', '', /lookahead and lookbehind/],
    ['a(?!b)', '', /lookahead and lookbehind/],
    ['(?<=a)b', '', /lookahead and lookbehind/],
    ['\\p{Emoji}', 'u', /Unicode property/],
    ['.{1000}', '', /too large/],
    ['a{1001}', '', /cannot run it/],
    ['\\ud83d', '', /lone surrogate/],
    ['(', '', /not a valid regular expression/],
  ])('%s', (pattern, flags, problem) => {
    expect(regexProblem(pattern, flags)).toMatch(problem);
    expect(() => tenantRegex(pattern, flags)).toThrow(problem);
  });

  it('a data schema with one is refused, the problem naming the pattern', () => {
    expect(dataSchemaProblems(schemaWith('(?=x)y'))).toEqual([
      expect.stringMatching(/^\/properties\/code\/pattern: lookahead/),
      expect.stringMatching(/^\/patternProperties\/\^x-\(\?=x\)y: lookahead/),
    ]);
  });

  it('a stored pattern it cannot run fails its expectation with the reason, instead of throwing', () => {
    const check = checkTurn({ type: 'replyMatches', pattern: '(?=a)a' }, turn('a'));
    expect(check).toEqual({ passed: false, reason: expect.stringContaining('cannot be run: lookahead') });
    const answer = checkAnswer({ dataSchema: schemaWith('(?=a)a') }, JSON.stringify({ data: { code: 'a' } }));
    expect(answer).toEqual({
      ok: false,
      problems: [expect.stringContaining('data schema cannot be checked')],
    });
  });
});

describe('a tenant pattern means what it means in JavaScript', () => {
  const patterns: [string, string][] = [
    ['order [A-Z]-\\d+', 'i'],
    ['^(?:hello|hi)\\b', ''],
    ['shipp(ed|ing)', 'i'],
    ['a\\sb', ''],
    ['a\\Sb', ''],
    ['[^\\s]+$', ''],
    ['a.b', ''],
    ['a.b', 's'],
    ['^b$', 'm'],
    ['^b$', ''],
    ['[^]', ''],
    ['[]', ''],
    ['\\u00e9', 'i'],
    ['😀.', 'u'],
    ['\\p{Lu}\\p{Ll}+', 'u'],
    ['\\p{Letter}+\\P{ASCII}', 'u'],
    ['\\p{Script=Greek}', 'u'],
    ['(?i:a)b', ''],
    ['(?-i:a)b', 'i'],
    ['\\/path\\.', ''],
    ['[[:alpha:]]', ''],
    ['\\Q\\z\\A', ''],
    ['\\cA\\c', ''],
    ['a{,3}', ''],
    ['x{2}y{1,}z{0,2}?', ''],
    ['\\bword\\B', ''],
    ['[\\b\\d\\w-]', ''],
    ['\\0\\x41', ''],
    ['\\ud83d\\ude00', ''],
  ];
  const texts = [
    'Your ORDER b-12',
    'hi there',
    'SHIPPED',
    'a\u00a0b',
    'a\rb',
    'a\nb',
    'a\nb\nc',
    'x',
    '',
    'É',
    '😀x',
    'Héllo wörld',
    'α',
    'Ab AB aB',
    '/path.',
    ':]',
    'QzA',
    '\u0001\\c',
    'a{,3}',
    'xxyyy',
    'words',
    '\b',
    '\u0000A',
    'ab c',
  ];

  it.each(patterns)('/%s/%s', (pattern, flags) => {
    const regex = tenantRegex(pattern, flags);
    for (const text of texts.filter((t) => !(flags.includes('m') && /[\r\u2028\u2029]/.test(t))))
      expect([text, regex.test(text)]).toEqual([text, new RegExp(pattern, flags).test(text)]);
  });

  it('the one difference, documented: with m, only \\n ends a line', () => {
    expect(tenantRegex('^b$', 'm').test('a\nb\nc')).toBe(true);
    expect(tenantRegex('^b$', 'm').test('a\rb')).toBe(false);
  });
});
