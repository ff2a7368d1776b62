/**
 * The types agent tests share between the API, the activities and the workflows
 * (workflows/test-run.ts): pure, so workflow code may import them.
 */
import type { Expectation, TestTurnRoute, TurnExpectation } from './scenario.schemas';

export type { Expectation } from './scenario.schemas';

/** A run is `running` until every scenario has a result (`passed` only if all passed) or it is cancelled. */
export const TEST_RUN_STATUSES = ['running', 'passed', 'failed', 'cancelled'] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];

/** A scenario as stored (its name is a column of its own). */
export interface ScenarioDefinition {
  turns?: { text: string; expect?: TurnExpectation[] }[];
  simulatedCaller?: { goal: string; maxTurns: number };
  mocks?: Record<string, unknown>;
  expectations?: Expectation[];
}

/** A tool call of a test turn, as the expectations see it. */
export interface TranscriptToolCall {
  name: string;
  arguments: Record<string, unknown>;
  success: boolean;
  /** Answered from the scenario's mocks: the tool was not called. */
  mocked: boolean;
}

/** One turn of a test session, as recorded by the session engine. */
export interface TranscriptTurn {
  index: number;
  text: string;
  reply: string;
  route: TestTurnRoute;
  toolCalls: TranscriptToolCall[];
  latencyMs: number;
  error: string | null;
}

/** One expectation's verdict: `turn` is the scripted turn it belongs to (from 1), null for the conversation. */
export interface Verdict {
  turn: number | null;
  expectation: Expectation;
  passed: boolean;
  reason: string;
}

export interface ScenarioOutcome {
  scenarioId: string;
  name: string;
  /** `error`: the scenario could not be run (the reason is in `error`); it counts as failed. */
  status: 'passed' | 'failed' | 'error';
  sessionId: string | null;
  verdicts: Verdict[];
  transcript: TranscriptTurn[];
  latencies: { turnsMs: number[]; p50Ms: number | null; maxMs: number | null };
  error: string | null;
}

/** testRunWorkflow's input (workflow id = run id). */
export interface TestRunWorkflowInput {
  runId: string;
  accountId: string;
  personaId: string;
  scenarioIds: string[];
  /** How many scenarios run at once. */
  concurrency: number;
}

/** testScenarioWorkflow's input (workflow id `<run id>-<scenario id>`). */
export interface TestScenarioWorkflowInput {
  runId: string;
  accountId: string;
  personaId: string;
  scenarioId: string;
}

/** A judge's grade (the model's answer, validated against JudgeAnswer). */
export interface JudgeGrade {
  passed: boolean;
  reason: string;
}

/** What starting a scenario's session needs. */
export interface TestSessionStart {
  runId: string;
  scenarioId: string;
  accountId: string;
  personaId: string;
  /** The persona version the session runs (null: the working draft). */
  personaVersion: number | null;
  mocks: ScenarioDefinition['mocks'];
}

/**
 * The session engine as agent tests drive it (src/agent-tests/scenario-steps.ts), given to the
 * worker's activities by the composition root, so activity code does not import the engine (whose
 * workflows import the activities' types).
 */
export interface TestSessionDriver {
  start(input: TestSessionStart): Promise<{ sessionId: string; greeting: string }>;
  takeTurn(input: {
    accountId: string;
    sessionId: string;
    index: number;
    text: string;
  }): Promise<TranscriptTurn>;
  end(input: { accountId: string; sessionId: string }): Promise<void>;
}
