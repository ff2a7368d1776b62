import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * The call's steps: local activities, run by the worker that runs the call (the conversations pool
 * registers both), so a step costs no task-queue round trip: each status, the session, the hang-up
 * and the end. Each is idempotent, so a step run again after a crash changes nothing. Placing stays
 * a remote activity: it is at most once by its row, and a local one cut short by a workflow task
 * timeout under load (its row marked, the carrier not yet asked) would leave the call unplaced.
 * Runs started before the steps were local keep remote ones (`patched`).
 */
export function callSteps(input: { carrierTimeoutMs: number }) {
  const { placeCall } = proxyActivities<Activities>({
    startToCloseTimeout: input.carrierTimeoutMs + 10_000,
    retry: { initialInterval: '1 second', maximumAttempts: 5 },
  });
  if (!patched('call-steps-local'))
    return { steps: proxyActivities<Activities>({ startToCloseTimeout: '30 seconds' }), placeCall };
  const steps = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
  });
  return { steps, placeCall };
}

export type CallSteps = ReturnType<typeof callSteps>['steps'];
