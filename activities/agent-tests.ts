import type {
  JudgeGrade,
  TestSessionDriver,
  TestSessionStart,
  TranscriptTurn,
} from '../src/agent-tests/agent-test-types';
import {
  completeTestRun,
  endedTestRun,
  recordScenarioResult,
  type ScenarioResultInput,
} from '../src/agent-tests/run-results';
import { loadRunScenario } from '../src/agent-tests/scenario-store';
import { judgeTranscript, simulatedCallerSays } from '../src/agent-tests/test-model';
import type { ActivityDeps } from './deps';
import { heartbeating } from './heartbeating';

/**
 * Agent tests' steps (workflows/test-run.ts), each idempotent. The session steps drive the session
 * engine through `deps.testSessions` (every worker started by src/app/runtime.ts has it).
 */
export function createAgentTestActivities(deps: ActivityDeps) {
  const sessions = (): TestSessionDriver => {
    if (!deps.testSessions)
      throw new Error('This worker cannot drive test sessions (ActivityDeps.testSessions)');
    return deps.testSessions;
  };
  return {
    loadTestScenario: (input: { runId: string; scenarioId: string }) => loadRunScenario(deps, input),
    startTestSession: (input: TestSessionStart) => heartbeating(() => sessions().start(input)),
    takeTestTurn: (input: Parameters<TestSessionDriver['takeTurn']>[0]) =>
      heartbeating(() => sessions().takeTurn(input)),
    endTestSession: (input: { accountId: string; sessionId: string }) =>
      heartbeating(() => sessions().end(input)),
    simulateCaller: async (input: { goal: string; greeting: string; transcript: TranscriptTurn[] }) => ({
      text: await heartbeating(() => simulatedCallerSays(deps.config, input)),
    }),
    judgeTestTranscript: (input: {
      rubric: string;
      greeting: string;
      transcript: TranscriptTurn[];
    }): Promise<JudgeGrade> => heartbeating(() => judgeTranscript(deps.config, input)),
    recordScenarioResult: (input: ScenarioResultInput) => recordScenarioResult(deps, input),
    completeTestRun: (input: { runId: string; cancelled?: boolean }) => completeTestRun(deps.orm.em, input),
    endedTestRun: (input: { runId: string }) => endedTestRun(deps.orm.em, input),
  };
}
