/**
 * What a run records: each scenario's result (written once), and the run's end with
 * `test_run.completed` in the same transaction (docs/webhooks.md). Both are safe to repeat.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/postgresql';
import type { CoreContext } from '../common/context';
import { derivedId } from '../common/ids';
import { emitEvent } from '../events/emit';
import { TestRun, TestRunResult } from './agent-test.entity';
import type { JudgeGrade, ScenarioOutcome, TestRunStatus, TranscriptTurn } from './agent-test-types';
import { latenciesOf, verdictsOf } from './expectations';
import { loadRunScenario } from './scenario-store';

export interface ScenarioResultInput {
  runId: string;
  scenarioId: string;
  sessionId: string | null;
  transcript: TranscriptTurn[];
  /** The judge's grade of each conversation expectation, by its index. */
  grades: Record<number, JudgeGrade>;
  /** Why the scenario could not be run to its end (its verdicts are then not given). */
  error: string | null;
}

/**
 * Evaluates the scenario's expectations and stores its result once, while its run is running;
 * answers the result stored. A run that has ended (cancelled while the scenario still ran: a
 * scenario hears of the cancel only at its next workflow task) keeps no result that comes after
 * it, so the scenario counts as not run to its end; the evaluation is answered all the same.
 */
export async function recordScenarioResult(
  ctx: Pick<CoreContext, 'orm'>,
  input: ScenarioResultInput,
): Promise<ScenarioOutcome> {
  const { name, definition } = await loadRunScenario(ctx, input);
  const verdicts = input.error ? [] : verdictsOf(definition, input.transcript, input.grades);
  const outcome: ScenarioOutcome = {
    scenarioId: input.scenarioId,
    name,
    status: input.error ? 'error' : verdicts.every((v) => v.passed) ? 'passed' : 'failed',
    sessionId: input.sessionId,
    verdicts,
    transcript: input.transcript,
    latencies: latenciesOf(input.transcript),
    error: input.error,
  };
  const knex = ctx.orm.em.getConnection().getKnex();
  const { rows } = await knex.raw<{ rows: { outcome: ScenarioOutcome }[] }>(
    `with stored as (
       insert into test_run_results (run_id, scenario_id, session_id, outcome, created_at)
       select ?, ?, ?, ?::jsonb, now() where exists (select 1 from test_runs where id = ? and status = 'running')
       on conflict (run_id, scenario_id) do update set run_id = excluded.run_id returning outcome
     )
     select outcome from stored
     union all
     select outcome from test_run_results
      where run_id = ? and scenario_id = ? and not exists (select 1 from stored)`,
    [
      input.runId,
      input.scenarioId,
      input.sessionId,
      JSON.stringify(outcome),
      input.runId,
      input.runId,
      input.scenarioId,
    ],
  );
  return rows[0]?.outcome ?? outcome;
}

/**
 * The outcome of a run that ended before its workflow began (cancelled while it waited to start),
 * or null when it is still running: its workflow then has nothing to do.
 */
export async function endedTestRun(
  em: EntityManager,
  input: { runId: string },
): Promise<{ status: TestRunStatus; passed: number; failed: number } | null> {
  const run = await em.fork().findOneOrFail(TestRun, { id: input.runId });
  return run.status === 'running' ? null : { status: run.status, passed: run.passed, failed: run.failed };
}

/**
 * Ends a running run: `cancelled`, or `passed` when every scenario passed, else `failed` (a scenario
 * without a result counts as failed), and emits `test_run.completed` in the same transaction. A run
 * that has ended already is left as it is (the API and the workflow may both end a cancelled run).
 */
export async function completeTestRun(
  em: EntityManager,
  input: { runId: string; cancelled?: boolean },
): Promise<{ status: TestRunStatus; passed: number; failed: number }> {
  return em.fork().transactional(async (tem) => {
    const run = await tem.findOneOrFail(
      TestRun,
      { id: input.runId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (run.status !== 'running') return { status: run.status, passed: run.passed, failed: run.failed };
    const results = await tem.find(TestRunResult, { runId: run.id });
    const passed = results.filter((r) => r.outcome.status === 'passed').length;
    const failed = run.scenarios.length - passed;
    const status: TestRunStatus = input.cancelled ? 'cancelled' : failed === 0 ? 'passed' : 'failed';
    const completedAt = new Date();
    Object.assign(run, { status, passed, failed, completedAt });
    emitEvent(tem, {
      id: derivedId('evt', run.id, 'test_run.completed'),
      accountId: run.account,
      environment: 'test',
      type: 'test_run.completed',
      personaId: run.personaId,
      data: {
        runId: run.id,
        personaId: run.personaId,
        personaVersion: run.personaVersion ?? null,
        status,
        passed,
        failed,
        total: run.scenarios.length,
        durationMs: completedAt.getTime() - run.createdAt.getTime(),
      },
    });
    return { status, passed, failed };
  });
}
