import type { Scenario, ScenarioRequest } from './useAgentTests';

/** A scenario as the editor holds it: plain fields, and JSON text for mocks and expectations. */
export interface ScenarioDraft {
  name: string;
  caller: 'scripted' | 'simulated';
  /** Scripted turns: what the caller says, and that turn's expectations as JSON text ('' for none). */
  turns: { text: string; expect: string }[];
  goal: string;
  maxTurns: number;
  /** Tool name → result, as JSON text. */
  mocks: string;
  /** The conversation's expectations, as JSON text. */
  expectations: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

export const EMPTY_DRAFT: ScenarioDraft = {
  name: '',
  caller: 'scripted',
  turns: [{ text: '', expect: '' }],
  goal: '',
  maxTurns: 4,
  mocks: '{}',
  expectations: '[]',
};

/** The editor's draft of a saved scenario. */
export function draftOf(s: Scenario): ScenarioDraft {
  return {
    name: s.name,
    caller: s.simulatedCaller ? 'simulated' : 'scripted',
    turns: s.turns?.map((t) => ({ text: t.text, expect: t.expect?.length ? json(t.expect) : '' })) ?? [
      { text: '', expect: '' },
    ],
    goal: s.simulatedCaller?.goal ?? '',
    maxTurns: s.simulatedCaller?.maxTurns ?? 4,
    mocks: json(s.mocks),
    expectations: json(s.expectations),
  };
}

/** `text` parsed as JSON of the `shape` wanted, or the problem in the API's `<field>: <problem>` form. */
function parsed(field: string, text: string, shape: 'object' | 'array', problems: string[]): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    problems.push(`${field}: not JSON (${(e as Error).message})`);
    return undefined;
  }
  const isArray = Array.isArray(value);
  const isObject = value !== null && typeof value === 'object' && !isArray;
  if (shape === 'array' ? !isArray : !isObject) {
    problems.push(`${field}: must be a JSON ${shape === 'array' ? 'array [ … ]' : 'object { … }'}`);
    return undefined;
  }
  return value;
}

/**
 * The request body of a draft, or the problems of its JSON fields (named as the API names fields,
 * so the editor shows both on the same fields). Shapes beyond JSON are left to the API to judge.
 */
export function bodyOf(draft: ScenarioDraft): { body: ScenarioRequest } | { problems: string[] } {
  const problems: string[] = [];
  const mocks = parsed('mocks', draft.mocks.trim() || '{}', 'object', problems);
  const expectations = parsed('expectations', draft.expectations.trim() || '[]', 'array', problems);
  const turns = draft.turns.map((t, i) =>
    t.expect.trim()
      ? { text: t.text, expect: parsed(`turns.${i}.expect`, t.expect, 'array', problems) }
      : { text: t.text },
  );
  if (problems.length) return { problems };
  const body = {
    name: draft.name,
    ...(draft.caller === 'scripted'
      ? { turns }
      : { simulatedCaller: { goal: draft.goal, maxTurns: draft.maxTurns } }),
    mocks,
    expectations,
  };
  return { body: body as ScenarioRequest };
}

/**
 * Problems by the editor's field: name, caller, goal, maxTurns, mocks, expectations; `turn.N` is turn
 * N's text, `expect.N` its expectations; `other` what no field shows.
 */
export type PlacedProblems = Map<string, string[]>;

const PLACES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^name$/, () => 'name'],
  [/^turns$/, () => 'caller'],
  [/^turns\.(\d+)\.text$/, (m) => `turn.${m[1]}`],
  [/^turns\.(\d+)\.expect(\..*)?$/, (m) => `expect.${m[1]}`],
  [/^turns\.(\d+)$/, (m) => `turn.${m[1]}`],
  [/^simulatedCaller\.goal$/, () => 'goal'],
  [/^simulatedCaller\.maxTurns$/, () => 'maxTurns'],
  [/^simulatedCaller$/, () => 'caller'],
  [/^mocks(\..*)?$/, () => 'mocks'],
  [/^expectations(\..*)?$/, () => 'expectations'],
];

/**
 * Places the API's `<path>: <problem>` lines (and bodyOf's) on the editor's fields; a line inside a
 * JSON field keeps the rest of its path (`expectations.1.pattern: …` shows `1.pattern: …` on the
 * expectations). Lines no field shows are under `other`.
 */
export function placeProblems(lines: string[]): PlacedProblems {
  const placed: PlacedProblems = new Map();
  const add = (field: string, text: string) => placed.set(field, [...(placed.get(field) ?? []), text]);
  for (const line of lines) {
    const match = /^([\w.]+): ([\s\S]*)$/.exec(line);
    const place = match ? PLACES.find(([pattern]) => pattern.test(match[1])) : undefined;
    if (!match || !place) {
      add('other', line);
      continue;
    }
    const field = place[1](place[0].exec(match[1]) as RegExpExecArray);
    const inner = /^(?:mocks|expectations|turns\.\d+\.expect)\.(.+)$/.exec(match[1]);
    add(field, inner ? `${inner[1]}: ${match[2]}` : match[2]);
  }
  return placed;
}

/** A template of each expectation kind, for the editor's "Add expectation" menu. */
export const EXPECTATION_TEMPLATES: Record<string, object> = {
  toolCalled: { type: 'toolCalled', name: 'orders__lookup_order', arguments: { orderId: 'A-1' } },
  toolNotCalled: { type: 'toolNotCalled', name: 'payments__refund' },
  route: { type: 'route', route: 'llm' },
  replyContains: { type: 'replyContains', text: 'order' },
  replyMatches: { type: 'replyMatches', pattern: 'shipp(ed|ing)', flags: 'i' },
  refused: { type: 'refused' },
  maxLatencyMs: { type: 'maxLatencyMs', ms: 3000 },
  judge: { type: 'judge', rubric: 'The agent is polite and never promises a refund.' },
};

/** `text` (a JSON array, or empty) with `item` appended; unchanged if it is not an array. */
export function appendTo(text: string, item: object): string {
  try {
    const list = text.trim() ? JSON.parse(text) : [];
    return Array.isArray(list) ? json([...list, item]) : text;
  } catch {
    return text;
  }
}
