import { Context } from '@temporalio/activity';

/** How often a long step (a turn, a model call, a slow receiver) tells Temporal it is alive. */
export const HEARTBEAT_MS = 2_000;

/**
 * Runs a step while heartbeating, so a worker that dies under it is noticed within the workflow's
 * heartbeat timeout (seconds) instead of its start-to-close timeout, and the step is retried on
 * another worker. A step shorter than HEARTBEAT_MS sends no heartbeat at all (Temporal Cloud counts
 * each heartbeat sent as an action).
 */
export async function heartbeating<T>(step: () => Promise<T>): Promise<T> {
  const context = Context.current();
  // a local activity has no heartbeat: its workflow task's timeout notices a dead worker
  if (context.info.isLocal) return step();
  const beat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
  try {
    return await step();
  } finally {
    clearInterval(beat);
  }
}
