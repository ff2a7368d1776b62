import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from '../common/context';
import { conflict, notFound, validationFailed } from '../http/errors';
import { PersonaVersion } from '../personas';
import { TestRun, TestRunResult } from './agent-test.entity';
import type { ScenarioOutcome } from './agent-test-types';
import type { RunViewShape, StartRunInput } from './run.schemas';
import { completeTestRun } from './run-results';
import { newTestRun, personaScenarios } from './run-rows';
import { cancelTestRunWorkflow, startTestRunWorkflow } from './run-workflows';
import { ownedPersona } from './scenarios.service';

/** `?wait=true` waits at most this long for the run to end. */
export const RUN_WAIT_MS = 10 * 60_000;
const WAIT_POLL_MS = 250;

/** The scenarios a run asks for: the ones named (each must be the persona's), else all of them. */
async function scenariosToRun(em: EntityManager, accountId: string, personaId: string, ids?: string[]) {
  const all = await personaScenarios(em, accountId, personaId);
  if (!ids) {
    if (!all.length)
      throw conflict(
        `Persona ${personaId} has no test scenarios; add one with POST /personas/${personaId}/tests`,
      );
    return all;
  }
  const unknown = ids.filter((id) => !all.some((s) => s.id === id));
  if (unknown.length)
    throw validationFailed(unknown.map((id) => `scenarios: ${id} is not a scenario of this persona`));
  return all.filter((s) => ids.includes(s.id));
}

/**
 * POST /personas/:id/test-runs: the run row, with its scenarios and persona version (null: the
 * working draft) frozen, commits before its workflow starts; if Temporal cannot be reached, the outbox handler starts it later.
 */
export async function startTestRun(
  ctx: AppContext,
  em: EntityManager,
  accountId: string,
  personaId: string,
  input: StartRunInput,
): Promise<TestRun> {
  await ownedPersona(em, accountId, personaId);
  if (
    input.version !== undefined &&
    !(await em.count(PersonaVersion, { personaId, version: input.version }))
  ) {
    throw validationFailed([`version: persona ${personaId} has no version ${input.version}`]);
  }
  const scenarios = await scenariosToRun(em, accountId, personaId, input.scenarios);
  const run = newTestRun(em, { accountId, personaId, version: input.version ?? null, scenarios });
  await em.flush();
  try {
    await startTestRunWorkflow(ctx.temporalEager ?? ctx.temporal, ctx.config, {
      id: run.id,
      accountId,
      personaId,
      scenarioIds: scenarios.map((s) => s.id),
    });
    await em.nativeUpdate(TestRun, { id: run.id }, { workflowStartedAt: new Date() });
  } catch (error) {
    ctx.logger.warn({ err: error, runId: run.id }, 'test run workflow not started yet; the dispatcher will');
  }
  return run;
}

export async function findRun(em: EntityManager, accountId: string, id: string): Promise<TestRun> {
  const run = await em.findOne(TestRun, { id, account: accountId });
  if (!run) throw notFound('Test run');
  return run;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

function runSummary(run: TestRun) {
  return {
    id: run.id,
    personaId: run.personaId,
    personaVersion: run.personaVersion ?? null,
    status: run.status,
    passed: run.passed,
    failed: run.failed,
    total: run.scenarios.length,
    createdAt: run.createdAt.toISOString(),
    completedAt: iso(run.completedAt),
  };
}

/** GET /test-runs/:id: the run with each scenario's result (`pending` until its child records it). */
export async function runView(em: EntityManager, run: TestRun): Promise<RunViewShape> {
  const results = await em.find(TestRunResult, { runId: run.id });
  const byScenario = new Map<string, ScenarioOutcome>(results.map((r) => [r.scenarioId, r.outcome]));
  return {
    ...runSummary(run),
    scenarios: run.scenarios.map(
      (s) =>
        byScenario.get(s.id) ?? {
          scenarioId: s.id,
          name: s.name,
          status: 'pending' as const,
          sessionId: null,
          verdicts: [],
          transcript: [],
          latencies: { turnsMs: [], p50Ms: null, maxMs: null },
          error: null,
        },
    ),
  };
}

export async function listRuns(em: EntityManager, accountId: string, personaId: string, limit: number) {
  await ownedPersona(em, accountId, personaId);
  const runs = await em.find(
    TestRun,
    { account: accountId, personaId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit },
  );
  return runs.map(runSummary);
}

/** POST /test-runs/:id/cancel: cancels the workflow (its running sessions end) and records `cancelled`. */
export async function cancelRun(ctx: AppContext, em: EntityManager, accountId: string, id: string) {
  const run = await findRun(em, accountId, id);
  if (run.status === 'running') {
    await cancelTestRunWorkflow(ctx.temporal, run.id);
    await completeTestRun(em, { runId: run.id, cancelled: true });
  }
  return runView(em, await em.refreshOrFail(run));
}

/** `?wait=true`: the run once it has ended, or as it is after RUN_WAIT_MS (still running). */
export async function awaitRun(em: EntityManager, run: TestRun, waitMs = RUN_WAIT_MS): Promise<TestRun> {
  const deadline = Date.now() + waitMs;
  let current = run;
  while (current.status === 'running' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    current = await em.fork().findOneOrFail(TestRun, { id: run.id });
  }
  return current;
}
