import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import { ownerAccountProperty, timestampProperties } from '../db/entity-properties';
import type { ScenarioDefinition, ScenarioOutcome, TestRunStatus } from './agent-test-types';

/**
 * A test scenario of a persona (`tsc_…`), owned like the persona by an account (not an
 * environment): its runs always drive sessions in the `test` environment.
 */
export class TestScenario {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt';
  id: string = newId('tsc');
  account!: string;
  personaId!: string;
  name!: string;
  definition!: ScenarioDefinition;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const TestScenarioSchema = new EntitySchema<TestScenario>({
  class: TestScenario,
  tableName: 'persona_test_scenarios',
  properties: {
    id: { type: 'string', primary: true, length: 40 },
    account: ownerAccountProperty(),
    personaId: { type: 'string', length: 40 },
    name: { type: 'string', length: 200 },
    definition: { type: 'json', columnType: 'jsonb' },
    ...timestampProperties(),
  },
});

/**
 * One run of a persona's suite (`testrun_…` = its workflow's id). The row, with the scenarios it
 * runs frozen in `scenarios`, commits before the workflow starts (the outbox starts it if the API
 * could not).
 */
export class TestRun {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'passed'
    | 'failed'
    | 'personaVersion'
    | 'workflowStartedAt'
    | 'completedAt'
    | 'createdAt'
    | 'updatedAt';
  id: string = newId('testrun');
  account!: string;
  personaId!: string;
  /** The persona version run (null: the current draft). */
  personaVersion?: number | null;
  status: TestRunStatus = 'running';
  /** The scenarios as they were when the run was asked for (later edits do not change a run). */
  scenarios!: { id: string; name: string; definition: ScenarioDefinition }[];
  passed = 0;
  failed = 0;
  workflowStartedAt?: Date | null;
  completedAt?: Date | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const TestRunSchema = new EntitySchema<TestRun>({
  class: TestRun,
  tableName: 'test_runs',
  properties: {
    id: { type: 'string', primary: true, length: 40 },
    account: ownerAccountProperty(),
    personaId: { type: 'string', length: 40 },
    personaVersion: { type: 'integer', nullable: true },
    status: { type: 'string', length: 16 },
    scenarios: { type: 'json', columnType: 'jsonb' },
    passed: { type: 'integer' },
    failed: { type: 'integer' },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    completedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    ...timestampProperties(),
  },
});

/** One scenario's result in a run, written once by the scenario's child workflow. */
export class TestRunResult {
  [OptionalProps]?: 'sessionId' | 'createdAt';
  runId!: string;
  scenarioId!: string;
  sessionId?: string | null;
  outcome!: ScenarioOutcome;
  createdAt: Date = new Date();
}

export const TestRunResultSchema = new EntitySchema<TestRunResult>({
  class: TestRunResult,
  tableName: 'test_run_results',
  properties: {
    runId: { type: 'string', primary: true, length: 40 },
    scenarioId: { type: 'string', primary: true, length: 40 },
    sessionId: { type: 'string', length: 40, nullable: true },
    outcome: { type: 'json', columnType: 'jsonb' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
