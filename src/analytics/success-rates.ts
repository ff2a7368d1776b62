import type { Knex } from 'knex';
import type { TimeWindow } from './windows';

/** Per persona: analyses graded against success criteria in a window, and how many passed. */
export interface PersonaSuccess {
  analyzedCalls: number;
  successRate: number | null;
}

/**
 * The success rate of each persona's calls (docs/sessions.md "Post-call analysis"): of its analyses
 * completed in the window with a success verdict, the share that passed. A persona without one is
 * absent (its rate is null: unknown, not 0).
 */
export async function successByPersona(
  knex: Knex,
  accountId: string,
  envs: string[],
  window: TimeWindow,
): Promise<Map<string, PersonaSuccess>> {
  const { rows } = await knex.raw<{ rows: { persona_id: string; graded: string; passed: string }[] }>(
    `select "persona_id", count(*) as graded, count(*) filter (where "success_passed") as passed
     from "session_analyses"
     where "account_id" = ? and "environment" = any(?) and "success_passed" is not null
       and "completed_at" >= ? and "completed_at" < ?
     group by "persona_id"`,
    [accountId, envs, new Date(window.from), new Date(window.to)],
  );
  return new Map(
    rows.map((r) => [
      r.persona_id,
      { analyzedCalls: Number(r.graded), successRate: Number(r.passed) / Number(r.graded) },
    ]),
  );
}
