import {
  CancellationScope,
  executeChild,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type {
  JudgeGrade,
  TestRunWorkflowInput,
  TestScenarioWorkflowInput,
  TranscriptTurn,
} from '../src/agent-tests/agent-test-types';

/** Session steps (as activities or local activities): retried while the engine is busy. */
const SESSION_STEP_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 12,
} as const;

/**
 * Session steps: a turn waits for the model and the session's workflow; retried while the engine is
 * busy. They heartbeat, so a worker that dies under one is noticed in seconds.
 */
const session = proxyActivities<Activities>({
  startToCloseTimeout: '4 minutes',
  heartbeatTimeout: '10 seconds',
  retry: SESSION_STEP_RETRY,
});
/** Model steps (simulated caller, judge): retried for a provider that is down or busy. */
const model = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});
/** Steps that only touch the database: safe to repeat, retried while it does not answer. */
export const DATABASE_STEP_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 20,
} as const;

/** Recording: only the database can fail it, and it is safe to repeat. */
const records = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: DATABASE_STEP_RETRY,
});

/**
 * A scenario's reading and recording as local activities: run inside its workflow task, with no
 * activity task of their own, they spare two round trips through Temporal per scenario. Executions
 * started before this patch keep the activities above.
 */
const localRecords = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: DATABASE_STEP_RETRY,
});
const LOCAL_RECORDS_PATCH = 'test-scenario-local-records';

/**
 * The session steps as local activities, with the same retries: a scenario's start, turns and end
 * run one after another inside its workflow tasks, sparing an activity task and a workflow task each
 * (bench:evals). A worker that dies under one is noticed by its workflow task's timeout (10 s), as a
 * heartbeat timeout noticed it, and the step runs again (each is idempotent). Executions started
 * before this patch keep the activities above.
 */
const localSession = proxyLocalActivities<Activities>({
  startToCloseTimeout: '4 minutes',
  localRetryThreshold: '10 seconds',
  retry: SESSION_STEP_RETRY,
});
const LOCAL_STEPS_PATCH = 'test-scenario-local-steps';
/** Since this patch a run first checks it has not ended already (cancelled before it started). */
const CHECKS_ENDED_PATCH = 'test-run-checks-ended';

/** Runs `work` on every item, at most `limit` at once, in order of the items. */
async function inLanes<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}

/**
 * One run of a persona's suite (workflow id = the `testrun_…` id): each scenario a child workflow
 * (`<run id>-<scenario id>`), `concurrency` at a time, then the run's end recorded with
 * `test_run.completed`. Cancelling it cancels the children (their sessions end) and records
 * `cancelled`. A child that fails outright leaves its scenario without a result: it counts as failed.
 * A run cancelled before its workflow began (a review's run, or one whose start waited for Temporal)
 * ends at once with the outcome recorded.
 */
export async function testRunWorkflow(input: TestRunWorkflowInput) {
  const { runId } = input;
  if (patched(CHECKS_ENDED_PATCH)) {
    const ended = await localRecords.endedTestRun({ runId });
    if (ended) {
      setCurrentDetails(`${ended.status} before it started: no scenario run`);
      return ended;
    }
  }
  // a scenario running local steps holds its workflow task while they run, and hears a cancellation
  // when that task is heartbeaten (at 80% of its timeout): 4 s makes that within about 3 s
  const childTask = patched(LOCAL_STEPS_PATCH) ? { workflowTaskTimeout: '4 seconds' } : {};
  try {
    setCurrentDetails(`Running ${input.scenarioIds.length} scenarios, ${input.concurrency} at a time`);
    await inLanes(input.scenarioIds, input.concurrency, async (scenarioId) => {
      const child: TestScenarioWorkflowInput = {
        runId,
        accountId: input.accountId,
        personaId: input.personaId,
        scenarioId,
      };
      try {
        await executeChild(testScenarioWorkflow, {
          workflowId: `${runId}-${scenarioId}`,
          args: [child],
          ...childTask,
        });
      } catch (error) {
        if (isCancellation(error)) throw error;
        log.warn('a scenario failed outright; it counts as failed', { scenarioId, error: String(error) });
      }
    });
    const outcome = await records.completeTestRun({ runId });
    setCurrentDetails(`${outcome.status}: ${outcome.passed} passed, ${outcome.failed} failed`);
    return outcome;
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => records.completeTestRun({ runId, cancelled: true }));
    }
    throw error;
  }
}

/**
 * One scenario of a run: a real session in the `test` environment, started, spoken to (scripted
 * turns, or a simulated caller for at most `maxTurns`), ended, judged, and its result recorded. A
 * step that fails for good is the scenario's `error`; a cancellation still ends the session.
 */
export async function testScenarioWorkflow(input: TestScenarioWorkflowInput) {
  const { runId, scenarioId, accountId } = input;
  const store = patched(LOCAL_RECORDS_PATCH) ? localRecords : records;
  const { definition, personaVersion } = await store.loadTestScenario({ runId, scenarioId });
  const steps = patched(LOCAL_STEPS_PATCH) ? localSession : session;
  const transcript: TranscriptTurn[] = [];
  const grades: Record<number, JudgeGrade> = {};
  let sessionId: string | null = null;
  let error: string | null = null;
  try {
    const started = await steps.startTestSession({ ...input, personaVersion, mocks: definition.mocks });
    sessionId = started.sessionId;
    const say = async (text: string) => {
      const index = transcript.length + 1;
      transcript.push(await steps.takeTestTurn({ accountId, sessionId: started.sessionId, index, text }));
    };
    if (definition.turns) {
      for (const turn of definition.turns) await say(turn.text);
    } else if (definition.simulatedCaller) {
      const { goal, maxTurns } = definition.simulatedCaller;
      while (transcript.length < maxTurns) {
        const next = await model.simulateCaller({ goal, greeting: started.greeting, transcript });
        if (next.text === null) break;
        await say(next.text);
      }
    }
    for (const [i, e] of (definition.expectations ?? []).entries()) {
      if (e.type !== 'judge') continue;
      grades[i] = await model.judgeTestTranscript({
        rubric: e.rubric,
        greeting: started.greeting,
        transcript,
      });
    }
  } catch (failure) {
    if (isCancellation(failure)) {
      await endQuietly(steps, accountId, sessionId);
      throw failure;
    }
    const cause = failure instanceof Error && failure.cause instanceof Error ? failure.cause : failure;
    error = cause instanceof Error ? cause.message : String(cause);
  }
  await endQuietly(steps, accountId, sessionId);
  return store.recordScenarioResult({ runId, scenarioId, sessionId, transcript, grades, error });
}

/** Ends the scenario's session, even while the scenario is being cancelled. */
async function endQuietly(steps: typeof session, accountId: string, sessionId: string | null): Promise<void> {
  if (!sessionId) return;
  await CancellationScope.nonCancellable(async () => {
    try {
      await steps.endTestSession({ accountId, sessionId });
    } catch (failure) {
      log.warn('the test session could not be ended; its idle timeout will', {
        sessionId,
        error: String(failure),
      });
    }
  });
}
