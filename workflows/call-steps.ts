import {
  ActivityFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PlaceOutcome } from '../src/telephony/calls/call-steps';
import { type CampaignCallEnded, campaignCallEndedSignal } from './messages';

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

/** Placing attempts while the carrier is never asked (no connection): 1 s apart, doubling. */
const PLACE_ATTEMPTS = 5;

/**
 * Places the call, trying again while the carrier could not even be asked (the request never left:
 * nothing was placed), up to PLACE_ATTEMPTS; a stop asked meanwhile (a hang-up) ends the tries, so
 * no call is placed after it. Answers the outcome, `stopped`, or `failed` when placing failed for
 * good (every attempt unasked, or the activity's own retries spent: the database down).
 */
export async function placeUnlessStopped(
  placeCall: ReturnType<typeof callSteps>['placeCall'],
  callId: string,
  stopped: () => boolean,
): Promise<Exclude<PlaceOutcome, { outcome: 'not_asked' }> | 'stopped' | 'failed'> {
  for (let attempt = 1; ; attempt++) {
    const placed = await placeCall({ callId }).catch((error: unknown) => {
      if (error instanceof ActivityFailure) return 'failed' as const;
      throw error;
    });
    if (placed === 'failed' || placed.outcome !== 'not_asked') return placed;
    if (attempt >= PLACE_ATTEMPTS) return 'failed';
    if (await condition(stopped, 1000 * 2 ** (attempt - 1))) return 'stopped';
  }
}

/**
 * A campaign's call tells its campaign it ended, before it records the end: the campaign frees the
 * slot and places its next call while this one records (the end's transaction and `call.ended` are
 * then off the campaign's path). Awaited, so the signal leaves with this workflow task and the end
 * is recorded in the next one. It goes to the campaign's current run, not the one that started the
 * call: a run that continues as new carries its calls under way over to the next (docs/campaigns.md
 * "Continue-as-new"); a call that told its end before this change replays so (`patched`). A
 * campaign that is gone (it cannot be, while this call holds one of its slots) is only logged.
 */
export async function tellParentOfEnd(end: CampaignCallEnded): Promise<void> {
  const parent = workflowInfo().parent;
  if (!parent) return;
  const runId = patched('campaign-call-tells-current-run') ? undefined : parent.runId;
  await getExternalWorkflowHandle(parent.workflowId, runId)
    .signal(campaignCallEndedSignal, end)
    .catch((error: unknown) =>
      log.warn("the campaign was not told of the call's end", { error: String(error) }),
    );
}
