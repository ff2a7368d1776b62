/**
 * The expectation evaluator (docs/personas.md "Testing an agent"): pure functions from an
 * expectation and what the session engine recorded to a verdict with its reason. A `judge` is
 * graded by the model (judge.ts) and only turned into a verdict here.
 */

import {
  MatchBudgetSpent,
  REGEX_TEXT_LIMIT,
  regexProblem,
  tenantRegex,
  withMatchBudget,
} from '../common/safe-regex';
import type { Expectation, JudgeGrade, TranscriptTurn, Verdict } from './agent-test-types';

type Check = { passed: boolean; reason: string };
type TurnCheckable = Exclude<Expectation, { type: 'judge' }>;

/** `expected` is a subset of `actual`: every key it gives is there, equal (objects compared the same way). */
export function isSubset(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((e, i) => isSubset(e, actual[i]))
    );
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    return Object.entries(expected).every(([k, v]) => k in a && isSubset(v, a[k]));
  }
  return Object.is(expected, actual);
}

const quote = (text: string, max = 120) =>
  JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/** Whether the pattern matches the text; null when the evaluation's matching budget is spent. */
function matches(pattern: string, flags: string | undefined, text: string): boolean | null {
  try {
    return tenantRegex(pattern, flags).test(text);
  } catch (error) {
    if (error instanceof MatchBudgetSpent) return null;
    throw error;
  }
}

/** One expectation against one turn. */
export function checkTurn(e: TurnCheckable, turn: TranscriptTurn): Check {
  switch (e.type) {
    case 'toolCalled': {
      const named = turn.toolCalls.filter((c) => c.name === e.name);
      if (!named.length) return { passed: false, reason: `${e.name} was not called` };
      if (!e.arguments) return { passed: true, reason: `${e.name} was called` };
      const match = named.find((c) => isSubset(e.arguments, c.arguments));
      return match
        ? { passed: true, reason: `${e.name} was called with ${JSON.stringify(match.arguments)}` }
        : {
            passed: false,
            reason: `${e.name} was called, but not with ${JSON.stringify(e.arguments)} (got ${named.map((c) => JSON.stringify(c.arguments)).join(', ')})`,
          };
    }
    case 'toolNotCalled': {
      const called = turn.toolCalls.some((c) => c.name === e.name);
      return { passed: !called, reason: called ? `${e.name} was called` : `${e.name} was not called` };
    }
    case 'route':
      return {
        passed: turn.route === e.route,
        reason: `the turn was answered by ${turn.route}${turn.route === e.route ? '' : `, not ${e.route}`}`,
      };
    case 'refused':
      return {
        passed: turn.route === 'refusal',
        reason: turn.route === 'refusal' ? 'the agent refused' : `the agent did not refuse (${turn.route})`,
      };
    case 'replyContains': {
      const [reply, text] = e.caseSensitive
        ? [turn.reply, e.text]
        : [turn.reply.toLowerCase(), e.text.toLowerCase()];
      const passed = reply.includes(text);
      return {
        passed,
        reason: `the reply ${quote(turn.reply)} ${passed ? 'contains' : 'does not contain'} ${quote(e.text)}`,
      };
    }
    case 'replyMatches': {
      // on the linear-time engine (src/common/safe-regex.ts); a pattern stored before it ran them fails
      const problem = regexProblem(e.pattern, e.flags);
      if (problem) return { passed: false, reason: `the pattern /${e.pattern}/ cannot be run: ${problem}` };
      const passed = matches(e.pattern, e.flags, turn.reply.slice(0, REGEX_TEXT_LIMIT));
      if (passed === null) return { passed: false, reason: new MatchBudgetSpent().message };
      return {
        passed,
        reason: `the reply ${quote(turn.reply)} ${passed ? 'matches' : 'does not match'} /${e.pattern}/`,
      };
    }
    case 'maxLatencyMs': {
      const passed = turn.latencyMs <= e.ms;
      return { passed, reason: `the turn took ${turn.latencyMs} ms (limit ${e.ms} ms)` };
    }
  }
}

/** Kinds that hold over a conversation when every turn meets them (the others: when some turn does). */
const EVERY_TURN = new Set<Expectation['type']>(['toolNotCalled', 'maxLatencyMs']);

/** One expectation against the whole conversation; a judge needs its grade. */
export function checkConversation(e: Expectation, transcript: TranscriptTurn[], grade?: JudgeGrade): Check {
  if (e.type === 'judge') {
    return grade
      ? { passed: grade.passed, reason: grade.reason }
      : { passed: false, reason: 'the judge gave no grade' };
  }
  if (!transcript.length) return { passed: false, reason: 'the conversation has no turns' };
  const checks = transcript.map((turn) => ({ turn, check: checkTurn(e, turn) }));
  if (EVERY_TURN.has(e.type)) {
    const failing = checks.find((c) => !c.check.passed);
    return failing
      ? { passed: false, reason: `turn ${failing.turn.index}: ${failing.check.reason}` }
      : { passed: true, reason: `every turn: ${checks.at(-1)?.check.reason}` };
  }
  const meeting = checks.find((c) => c.check.passed);
  return meeting
    ? { passed: true, reason: `turn ${meeting.turn.index}: ${meeting.check.reason}` }
    : { passed: false, reason: `no turn met it (last: ${checks.at(-1)?.check.reason})` };
}

/**
 * Every verdict of a scenario: each scripted turn's own expectations against that turn (turn n of
 * the script is the n-th turn of the transcript), then the conversation's. `grades` holds the judge's
 * grade of each conversation expectation by its index. Its replyMatches share one matching budget
 * (src/common/safe-regex.ts): one past it fails, saying it was not checked.
 */
export function verdictsOf(
  scenario: { turns?: { expect?: TurnCheckable[] }[]; expectations?: Expectation[] },
  transcript: TranscriptTurn[],
  grades: Record<number, JudgeGrade> = {},
): Verdict[] {
  return withMatchBudget(() => evaluate(scenario, transcript, grades));
}

function evaluate(
  scenario: { turns?: { expect?: TurnCheckable[] }[]; expectations?: Expectation[] },
  transcript: TranscriptTurn[],
  grades: Record<number, JudgeGrade>,
): Verdict[] {
  const verdicts: Verdict[] = [];
  (scenario.turns ?? []).forEach((scripted, i) => {
    const turn = transcript[i];
    for (const expectation of scripted.expect ?? []) {
      const check = turn ? checkTurn(expectation, turn) : { passed: false, reason: 'the turn was not taken' };
      verdicts.push({ turn: i + 1, expectation, ...check });
    }
  });
  (scenario.expectations ?? []).forEach((expectation, i) => {
    verdicts.push({ turn: null, expectation, ...checkConversation(expectation, transcript, grades[i]) });
  });
  return verdicts;
}

/** The median and maximum of the turns' latencies. */
export function latenciesOf(transcript: TranscriptTurn[]) {
  const turnsMs = transcript.map((t) => t.latencyMs);
  const sorted = [...turnsMs].sort((a, b) => a - b);
  return {
    turnsMs,
    p50Ms: sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null,
    maxMs: sorted.length ? sorted[sorted.length - 1] : null,
  };
}
