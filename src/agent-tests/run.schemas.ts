import { z } from 'zod';
import { timestamp } from '../http/envelope';
import { TEST_RUN_STATUSES } from './agent-test-types';
import { Expectation, SCENARIO_LIMITS } from './scenario.schemas';

export const StartRunBody = z
  .strictObject({
    version: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'A frozen persona version to run; by default the current draft' }),
    scenarios: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(SCENARIO_LIMITS.scenariosPerPersona)
      .optional()
      .meta({ description: 'Scenario ids to run; by default every scenario of the persona' }),
  })
  .meta({ id: 'StartTestRunRequest' });
export type StartRunInput = z.infer<typeof StartRunBody>;

export const StartRunQuery = z.strictObject({
  wait: z.enum(['true', 'false']).optional().meta({
    description: '`true`: answer when the run has ended (at most 10 minutes; 202 if it is still running)',
  }),
});

export const RunParams = z.object({ id: z.string().min(1).max(64) });
export const ListRunsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

const TranscriptTurnView = z.object({
  index: z.number().int(),
  text: z.string(),
  reply: z.string(),
  route: z.string(),
  toolCalls: z.array(
    z.object({
      name: z.string(),
      arguments: z.record(z.string(), z.unknown()),
      success: z.boolean(),
      mocked: z
        .boolean()
        .meta({ description: "Answered from the scenario's mocks: the tool was not called" }),
    }),
  ),
  latencyMs: z.number().int(),
  error: z.string().nullable(),
});

const ScenarioResultView = z
  .object({
    scenarioId: z.string(),
    name: z.string(),
    status: z.enum(['pending', 'passed', 'failed', 'error']).meta({
      description:
        '`pending` until its child workflow records it; `error`: it could not be run (see `error`)',
    }),
    sessionId: z.string().nullable(),
    verdicts: z.array(
      z.object({
        turn: z
          .number()
          .int()
          .nullable()
          .meta({ description: 'The scripted turn (from 1); null: the conversation' }),
        expectation: Expectation,
        passed: z.boolean(),
        reason: z.string(),
      }),
    ),
    transcript: z.array(TranscriptTurnView),
    latencies: z.object({
      turnsMs: z.array(z.number().int()),
      p50Ms: z.number().int().nullable(),
      maxMs: z.number().int().nullable(),
    }),
    error: z.string().nullable(),
  })
  .meta({ id: 'TestScenarioResult' });

export const RunView = z
  .object({
    id: z.string().meta({ example: 'testrun_4fQk…', description: 'Also the id of its Temporal workflow' }),
    personaId: z.string(),
    personaVersion: z.number().int().nullable().meta({ description: 'null: the draft as it was at the run' }),
    status: z.enum(TEST_RUN_STATUSES),
    passed: z.number().int(),
    failed: z.number().int(),
    total: z.number().int(),
    createdAt: timestamp(),
    completedAt: timestamp().nullable(),
    scenarios: z.array(ScenarioResultView),
  })
  .meta({ id: 'TestRun' });
export type RunViewShape = z.input<typeof RunView>;

export const RunSummary = RunView.omit({ scenarios: true }).meta({ id: 'TestRunSummary' });
export const RunEnvelope = z.object({ run: RunView });
export const RunList = z.object({ runs: z.array(RunSummary) });
