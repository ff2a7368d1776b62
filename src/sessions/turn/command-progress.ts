import type { AppContext } from '../../common/context';
import { executionSteps, type StepRecord } from '../../voice-workflows';

/** How often a voice command running in the session's workflow is looked at while the turn waits. */
const PROGRESS_POLL_MS = 100;

/**
 * Follows a voice command's execution while the session's workflow runs it, from the progress the
 * workflow records (docs/voice-stream.md "Messages"): each node, once settled, goes to `onStep` once,
 * in the order it settled, so a `speak` step is heard as it completes. `stop()` reads the progress
 * one last time (with the finished run's steps) and stops.
 */
export function followCommand(ctx: AppContext, executionId: string, onStep: (step: StepRecord) => void) {
  const seen = new Set<string>();
  const knex = ctx.orm.em.getConnection().getKnex();
  const look = async (steps?: StepRecord[]) => {
    for (const step of steps ?? (await executionSteps(knex, executionId))) {
      if (seen.has(step.nodeId)) continue;
      seen.add(step.nodeId);
      onStep(step);
    }
  };
  let looking = Promise.resolve();
  const timer = setInterval(() => {
    looking = looking.then(() => look()).catch(() => undefined);
  }, PROGRESS_POLL_MS);
  return {
    /** The run's own steps settle the rest. */
    async stop(finalSteps: StepRecord[]): Promise<void> {
      clearInterval(timer);
      await looking;
      await look(finalSteps);
    },
  };
}
