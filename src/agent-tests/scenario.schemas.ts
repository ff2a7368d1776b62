import { z } from 'zod';
import { regexProblem } from '../common/safe-regex';
import { timestamp } from '../http/envelope';

/**
 * How a turn may be answered: the session engine's routes (src/sessions/statuses.ts TURN_ROUTES;
 * test/agent-tests.unit.test.ts checks they are the same). Kept here so this module, which workflow
 * code reaches through its types, imports nothing of the session engine.
 */
export const TEST_TURN_ROUTES = ['workflow', 'llm', 'refusal', 'fallback'] as const;
export type TestTurnRoute = (typeof TEST_TURN_ROUTES)[number];

/** Bounds of a scenario (docs/personas.md "Testing an agent"). */
export const SCENARIO_LIMITS = {
  turns: 20,
  turnText: 2_000,
  expectationsPerTurn: 20,
  expectations: 50,
  simulatedMaxTurns: 10,
  goal: 2_000,
  rubric: 2_000,
  mocks: 50,
  /** A mock's result, as JSON text. */
  mockBytes: 16_000,
  /** A regex pattern of `replyMatches`. */
  pattern: 200,
  scenariosPerPersona: 100,
} as const;

const toolName = z.string().min(1).max(128);

const ToolCalled = z.strictObject({
  type: z.literal('toolCalled'),
  name: toolName,
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: 'Matched as a subset: every key given must be in the call, equal (deeply)' }),
});
const ToolNotCalled = z.strictObject({ type: z.literal('toolNotCalled'), name: toolName });
const Route = z.strictObject({ type: z.literal('route'), route: z.enum(TEST_TURN_ROUTES) });
const ReplyContains = z.strictObject({
  type: z.literal('replyContains'),
  text: z.string().min(1).max(500),
  caseSensitive: z.boolean().optional(),
});
const ReplyMatches = z
  .strictObject({
    type: z.literal('replyMatches'),
    pattern: z.string().min(1).max(SCENARIO_LIMITS.pattern),
    flags: z
      .string()
      .regex(/^[imsu]{0,4}$/, 'flags: only i, m, s and u (each at most once)')
      .optional(),
  })
  .superRefine((e, issue) => {
    const problem = regexProblem(e.pattern, e.flags);
    if (problem) issue.addIssue({ code: 'custom', path: ['pattern'], message: problem });
  });
const Refused = z.strictObject({ type: z.literal('refused') });
const MaxLatency = z.strictObject({
  type: z.literal('maxLatencyMs'),
  ms: z.number().int().min(1).max(600_000),
});
const Judge = z.strictObject({
  type: z.literal('judge'),
  rubric: z.string().min(1).max(SCENARIO_LIMITS.rubric),
});

/** What one turn may expect (a judge grades the whole transcript, so it is a conversation expectation). */
export const TurnExpectation = z
  .discriminatedUnion('type', [
    ToolCalled,
    ToolNotCalled,
    Route,
    ReplyContains,
    ReplyMatches,
    Refused,
    MaxLatency,
  ])
  .meta({ id: 'TurnExpectation' });
export type TurnExpectation = z.infer<typeof TurnExpectation>;
export const Expectation = z
  .discriminatedUnion('type', [
    ToolCalled,
    ToolNotCalled,
    Route,
    ReplyContains,
    ReplyMatches,
    Refused,
    MaxLatency,
    Judge,
  ])
  .meta({
    id: 'TestExpectation',
    description:
      'Over the whole conversation: `toolCalled` / `replyContains` / `replyMatches` / `route` / `refused` hold if some turn meets them, `toolNotCalled` and `maxLatencyMs` if every turn does; `judge` grades the transcript.',
  });
export type Expectation = z.infer<typeof Expectation>;

const ScriptedTurn = z.strictObject({
  text: z.string().min(1).max(SCENARIO_LIMITS.turnText),
  expect: z.array(TurnExpectation).max(SCENARIO_LIMITS.expectationsPerTurn).optional(),
});

const SimulatedCaller = z.strictObject({
  goal: z.string().min(1).max(SCENARIO_LIMITS.goal),
  maxTurns: z.number().int().min(1).max(SCENARIO_LIMITS.simulatedMaxTurns),
});

const mocks = z
  .record(toolName, z.unknown())
  .refine((m) => Object.keys(m).length <= SCENARIO_LIMITS.mocks, `at most ${SCENARIO_LIMITS.mocks} mocks`)
  .refine(
    (m) => Object.values(m).every((v) => (JSON.stringify(v) ?? '').length <= SCENARIO_LIMITS.mockBytes),
    `a mock's result is at most ${SCENARIO_LIMITS.mockBytes} characters of JSON`,
  )
  .meta({ description: 'Tool name → the result it answers in the test, without calling the tool' });

/** A scenario as written: exactly one of scripted `turns` and `simulatedCaller`. */
export const ScenarioBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    turns: z.array(ScriptedTurn).min(1).max(SCENARIO_LIMITS.turns).optional(),
    simulatedCaller: SimulatedCaller.optional(),
    mocks: mocks.optional(),
    expectations: z.array(Expectation).max(SCENARIO_LIMITS.expectations).optional(),
  })
  .refine((s) => (s.turns ? 1 : 0) + (s.simulatedCaller ? 1 : 0) === 1, {
    message: 'give exactly one of `turns` (a scripted caller) and `simulatedCaller`',
    path: ['turns'],
  })
  .meta({ id: 'TestScenarioRequest' });
export type ScenarioInput = z.infer<typeof ScenarioBody>;

export const ScenarioView = z
  .object({
    id: z.string().meta({ example: 'tsc_4fQk…' }),
    personaId: z.string(),
    name: z.string(),
    turns: z.array(ScriptedTurn).optional(),
    simulatedCaller: SimulatedCaller.optional(),
    mocks: z.record(z.string(), z.unknown()),
    expectations: z.array(Expectation),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'TestScenario' });

export const ScenarioEnvelope = z.object({ scenario: ScenarioView });
export const ScenarioList = z.object({ scenarios: z.array(ScenarioView) });
export const ScenarioDeleted = z.object({ deleted: z.literal(true), id: z.string() });
export const PersonaTestParams = z.object({ id: z.string().min(1).max(64) });
export const ScenarioParams = z.object({
  id: z.string().min(1).max(64),
  scenarioId: z.string().min(1).max(64),
});
