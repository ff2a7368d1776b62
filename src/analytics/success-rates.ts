import type { Knex } from 'knex';
import type { SessionScope } from './session-rows';
import type { TimeWindow } from './windows';

/** Per persona: analyses graded against success criteria in a window, and how many passed. */
export interface PersonaSuccess {
  analyzedCalls: number;
  successRate: number | null;
}

/**
 * The success rate of each persona's calls (docs/sessions.md "Post-call analysis"): of its analyses
 * completed in the window with a success verdict, the share that passed. A persona without one is
 * absent (its rate is null: unknown, not 0). The analyses of agent-test runs' sessions count only
 * with `includeTestRuns`.
 */
export async function successByPersona(
  knex: Knex,
  scope: SessionScope,
  window: TimeWindow,
): Promise<Map<string, PersonaSuccess>> {
  const testRuns = scope.includeTestRuns
    ? ''
    : 'and not exists (select 1 from "sessions" s where s."id" = a."session_id" and s."test_run_id" is not null)';
  const { rows } = await knex.raw<{ rows: { persona_id: string; graded: string; passed: string }[] }>(
    `select a."persona_id", count(*) as graded, count(*) filter (where a."success_passed") as passed
     from "session_analyses" a
     where a."account_id" = ? and a."environment" = any(?) and a."success_passed" is not null
       and a."completed_at" >= ? and a."completed_at" < ? ${testRuns}
     group by a."persona_id"`,
    [scope.accountId, scope.envs, new Date(window.from), new Date(window.to)],
  );
  return new Map(
    rows.map((r) => [
      r.persona_id,
      { analyzedCalls: Number(r.graded), successRate: Number(r.passed) / Number(r.graded) },
    ]),
  );
}
