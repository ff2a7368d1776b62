import type { CoreContext } from '../common/context';
import { TestRun } from './agent-test.entity';

/** The scenario as the run froze it, and the run's persona version. */
export async function loadRunScenario(
  ctx: Pick<CoreContext, 'orm'>,
  input: { runId: string; scenarioId: string },
) {
  const run = await ctx.orm.em.fork().findOneOrFail(TestRun, { id: input.runId });
  const scenario = run.scenarios.find((s) => s.id === input.scenarioId);
  if (!scenario) throw new Error(`Scenario ${input.scenarioId} is not part of run ${input.runId}`);
  return { name: scenario.name, definition: scenario.definition, personaVersion: run.personaVersion ?? null };
}
