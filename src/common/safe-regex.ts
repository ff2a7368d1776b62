import { RE2JS } from 're2js';
import { toRe2Syntax, UnsupportedPattern } from './re2-syntax';

/**
 * The regular expressions tenants write (`replyMatches` expectations, `pattern` and
 * `patternProperties` in an analysis data schema; docs/security.md "Tenant regular expressions").
 * JavaScript's engine backtracks: `a*a*c`, `(a|aa)*c` or `(a+)+$` on a long run of `a`s takes
 * polynomial or exponential time, and it cannot be interrupted, so one pattern could hold the shared
 * worker. Tenant patterns therefore never run on it: they run on re2js, a pure JavaScript port of
 * RE2's engine, whose time is linear in the text whatever the pattern. The pattern keeps
 * JavaScript's syntax and meaning (re2-syntax.ts rewrites it); what RE2 cannot run (backreferences,
 * lookaround) is refused when it is written, by the same code that compiles it to run, so nothing
 * accepted fails to compile later.
 */

/** A reply is matched on at most this many characters. */
export const REGEX_TEXT_LIMIT = 10_000;
/** The longest pattern accepted. */
export const REGEX_PATTERN_LIMIT = 200;
/**
 * The most instructions a compiled pattern may have. Matching takes time linear in the text times
 * this size at worst; patterns people write compile to a few dozen, only large repeat counts
 * (`.{1000}`) go past it.
 */
export const REGEX_PROGRAM_LIMIT = 200;

/**
 * The matching work one evaluation may do (a scenario's verdicts, one check of an analysis answer),
 * in units of a character of text times an instruction of the pattern. At worst (large Unicode
 * classes, which the engine runs without its DFA) a unit costs about 100 ns, so this holds one
 * evaluation's time to about a second; scenarios people write use a small fraction of it.
 */
export const REGEX_MATCH_BUDGET = 10_000_000;

/** Why a tenant's pattern cannot be run (the message says what to change). */
export class TenantPatternError extends Error {}

/** The evaluation's patterns went over REGEX_MATCH_BUDGET: the match asked for was not run. */
export class MatchBudgetSpent extends Error {
  constructor() {
    super(
      `not checked: the patterns went over their matching budget (${REGEX_MATCH_BUDGET} characters times instructions per evaluation)`,
    );
  }
}

/** What is left of the budget of the evaluation under way (withMatchBudget), if any. */
let budgetLeft: number | null = null;

/**
 * Runs `evaluate` with a fresh REGEX_MATCH_BUDGET for every tenant pattern it runs: past it a
 * match throws MatchBudgetSpent instead of running. Synchronous, so no other evaluation shares it.
 */
export function withMatchBudget<T>(evaluate: () => T): T {
  const outer = budgetLeft;
  budgetLeft = REGEX_MATCH_BUDGET;
  try {
    return evaluate();
  } finally {
    budgetLeft = outer;
  }
}

function charge(units: number): void {
  if (budgetLeft === null) return;
  if (units > budgetLeft) {
    budgetLeft = 0;
    throw new MatchBudgetSpent();
  }
  budgetLeft -= units;
}

/** A compiled tenant pattern: whether it matches somewhere in a text, in time linear in the text. */
export interface TenantRegex {
  test(text: string): boolean;
  /** The first match in a text (the whole match), or null when there is none. */
  find(text: string): string | null;
  /** Its size: the instructions of the engine it compiled to. */
  readonly size: number;
  toString(): string;
}

/** Compiled patterns by flags and text, bounded (oldest out first): few distinct patterns are in use. */
const compiled = new Map<string, TenantRegex>();
const COMPILED_KEPT = 1000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function compile(pattern: string, flags: string): TenantRegex {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new TenantPatternError(`not a valid regular expression: ${messageOf(error)}`);
  }
  let syntax: string;
  try {
    syntax = toRe2Syntax(pattern, flags);
  } catch (error) {
    if (error instanceof UnsupportedPattern)
      throw new TenantPatternError(`${error.message}: patterns run on a linear-time engine (RE2)`);
    throw new TenantPatternError(`not a valid regular expression: ${messageOf(error)}`);
  }
  let engine: RE2JS;
  try {
    engine = RE2JS.compile(syntax, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new TenantPatternError(`the linear-time engine (RE2) cannot run it: ${messageOf(error)}`);
  }
  if (engine.programSize() > REGEX_PROGRAM_LIMIT)
    throw new TenantPatternError(
      `too large: it compiles to ${engine.programSize()} instructions of the linear-time engine, at most ${REGEX_PROGRAM_LIMIT} (use smaller repeat counts)`,
    );
  const size = engine.programSize();
  return {
    test: (text) => {
      charge(text.length * size);
      return engine.test(text);
    },
    find: (text) => {
      charge(text.length * size);
      const matcher = engine.matcher(text);
      return matcher.find() ? matcher.group(0) : null;
    },
    size,
    toString: () => `/${pattern}/${flags}`,
  };
}

/**
 * A tenant's pattern (JavaScript syntax and flags `i m s u`), compiled for the linear-time engine;
 * throws TenantPatternError when it cannot be run (regexProblem says why beforehand).
 */
export function tenantRegex(pattern: string, flags = ''): TenantRegex {
  const key = `${flags}/${pattern}`;
  const known = compiled.get(key);
  if (known) return known;
  const regex = compile(pattern, flags);
  compiled.set(key, regex);
  if (compiled.size > COMPILED_KEPT) compiled.delete(compiled.keys().next().value as string);
  return regex;
}

/** Why the pattern is refused, or null when it is acceptable: exactly when tenantRegex would throw. */
export function regexProblem(pattern: string, flags = ''): string | null {
  try {
    tenantRegex(pattern, flags);
    return null;
  } catch (error) {
    if (error instanceof TenantPatternError) return error.message;
    throw error;
  }
}

/**
 * The engine ajv compiles a data schema's `pattern`s and `patternProperties` keys with (its
 * `code.regExp` option; `u` is the flag JSON Schema asks for), so they run on RE2 too.
 */
export const tenantRegExpEngine = Object.assign((pattern: string, u: string) => tenantRegex(pattern, u), {
  code: 'tenantRegex',
});
