/**
 * The review's test gate (docs/personas.md "Gating the review on tests"): a persona review's
 * workflow (workflows/review-tests.ts) runs the persona's suite on the submitted draft before the
 * operator decides, records the run's summary on the review, and, when the account requires
 * passing tests, has a suite that did not pass rejected at once. Both steps are safe to repeat.
 */
import { LockMode } from '@mikro-orm/postgresql';
import { accountSettings } from '../accounts';
import type { CoreContext } from '../common/context';
import { Review, type ReviewTests } from '../reviews';
import { TestRun, TestRunResult } from './agent-test.entity';
import type { ScenarioOutcome, TestRunWorkflowInput } from './agent-test-types';
import { completeTestRun } from './run-results';
import { newTestRun, personaScenarios } from './run-rows';

type Ctx = Pick<CoreContext, 'orm' | 'config'>;

/** What a review records when the persona has no scenarios: nothing ran, nothing failed. */
const NO_TESTS: ReviewTests = {
  runId: null,
  status: 'none',
  passed: 0,
  failed: 0,
  total: 0,
  failures: [],
  completedAt: null,
};
/** Bounds of a summary: the reasons kept per scenario, and the length of each. */
const MAX_REASONS = 10;
const MAX_REASON_CHARS = 300;
/** Review notes are at most this long (as an operator's are). */
const MAX_NOTES_CHARS = 2000;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const runInput = (ctx: Ctx, run: TestRun): TestRunWorkflowInput => ({
  runId: run.id,
  accountId: run.account,
  personaId: run.personaId,
  scenarioIds: run.scenarios.map((s) => s.id),
  concurrency: ctx.config.agentTests.runConcurrency,
});

/**
 * The review's test run, created once (keyed by the review: its id is stored on the review row,
 * locked meanwhile) on the working draft the submission froze, with every scenario of the persona.
 * Answers the run's workflow input, or null when there is nothing to run: the persona has no
 * scenarios (recorded as `status: none`), or the review is no longer pending.
 */
export async function startReviewTestRun(
  ctx: Ctx,
  input: { reviewId: string },
): Promise<TestRunWorkflowInput | null> {
  return ctx.orm.em.fork().transactional(async (tem) => {
    const review = await tem.findOne(
      Review,
      { id: input.reviewId, kind: 'persona' },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (review?.status !== 'pending') return null;
    if (review.testRunId) return runInput(ctx, await tem.findOneOrFail(TestRun, { id: review.testRunId }));
    if (review.tests) return null; // recorded already: no scenarios
    const scenarios = await personaScenarios(tem, review.accountId, review.subjectId);
    if (!scenarios.length) {
      review.tests = NO_TESTS;
      return null;
    }
    // the review's workflow starts the run as its child: marked started, so the outbox never does
    const run = newTestRun(tem, {
      accountId: review.accountId,
      personaId: review.subjectId,
      version: null,
      scenarios,
      workflowStartedAt: new Date(),
    });
    Object.assign(review, { testRunId: run.id, tests: summaryOf(run, []) });
    return runInput(ctx, run);
  });
}

/** Why a scenario did not pass: its error, else its failing expectations' reasons. */
function reasonsOf(outcome: ScenarioOutcome | undefined, runStatus: string): string[] {
  if (!outcome)
    return [
      runStatus === 'cancelled' ? 'not run to its end: the run was cancelled' : 'it recorded no result',
    ];
  if (outcome.error) return [clip(outcome.error, MAX_REASON_CHARS)];
  return outcome.verdicts
    .filter((v) => !v.passed)
    .slice(0, MAX_REASONS)
    .map((v) =>
      clip(`${v.turn ? `turn ${v.turn}, ` : ''}${v.expectation.type}: ${v.reason}`, MAX_REASON_CHARS),
    );
}

/** A run's summary as the review keeps it. */
export function summaryOf(run: TestRun, results: TestRunResult[]): ReviewTests {
  const byScenario = new Map(results.map((r) => [r.scenarioId, r.outcome]));
  const ended = run.status !== 'running';
  return {
    runId: run.id,
    status: run.status,
    passed: run.passed,
    failed: run.failed,
    total: run.scenarios.length,
    failures: !ended
      ? []
      : run.scenarios.flatMap((s) => {
          const outcome = byScenario.get(s.id);
          if (outcome?.status === 'passed') return [];
          return [
            {
              scenarioId: s.id,
              name: s.name,
              status: outcome?.status === 'failed' ? ('failed' as const) : ('error' as const),
              reasons: reasonsOf(outcome, run.status),
            },
          ];
        }),
    completedAt: run.completedAt ? run.completedAt.toISOString() : null,
  };
}

/** The notes of an automatic rejection: why, then each failing scenario with its reasons. */
function rejectionNotes(tests: ReviewTests): string {
  const head =
    tests.status === 'cancelled'
      ? `The test suite was cancelled (${tests.passed} of ${tests.total} scenarios passed)`
      : `The test suite failed: ${tests.failed} of ${tests.total} scenarios did not pass`;
  const lines = tests.failures.map((f) => `- ${f.name}: ${f.reasons.join('; ')}`);
  return clip(
    [`${head}, and this account requires passing tests (requirePassingTests).`, ...lines].join('\n'),
    MAX_NOTES_CHARS,
  );
}

/**
 * Once the review's run has ended (its child workflow returned, failed or was cancelled): ends a run
 * its workflow could not end (scenarios without a result count as failed), stores the summary on
 * the review, and answers the notes to reject it with when the account requires passing tests and
 * the suite did not pass (null: the operator decides).
 */
export async function recordReviewTests(
  ctx: Ctx,
  input: { reviewId: string; runId: string },
): Promise<{ rejectNotes: string | null; tests: ReviewTests }> {
  await completeTestRun(ctx.orm.em, { runId: input.runId });
  const em = ctx.orm.em.fork();
  const run = await em.findOneOrFail(TestRun, { id: input.runId });
  const tests = summaryOf(run, await em.find(TestRunResult, { runId: run.id }));
  await em.nativeUpdate(Review, { id: input.reviewId }, { tests });
  const { requirePassingTests } = await accountSettings(em, run.account);
  return {
    rejectNotes: requirePassingTests && tests.status !== 'passed' ? rejectionNotes(tests) : null,
    tests,
  };
}
