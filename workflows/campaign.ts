import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { type CallingHours, type CampaignClock, callingWindow } from '../src/campaigns/calling-hours';
import type { CampaignStatus } from '../src/campaigns/statuses';
import { type CampaignCallSettings, CampaignCalls, type CarriedCall } from './campaign-calls';
import {
  type CampaignState,
  campaignCallEndedSignal,
  campaignStateQuery,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
} from './messages';

export interface CampaignWorkflowInput {
  campaignId: string;
  concurrency: number;
  callingHours: CallingHours;
  clock: CampaignClock;
  calls: CampaignCallSettings;
  /** CAMPAIGN_EVENTS_PER_RUN (CAMPAIGN_EVENTS_PER_RUN's default when not given: runs started before it). */
  eventsPerRun?: number;
  /**
   * What a run hands the next one (continue-as-new): its pause or cancel, and its calls under way
   * (at most `concurrency`); never the contacts, which stay in PostgreSQL.
   */
  carried?: { paused: boolean; canceled?: boolean; runs: number; calls?: CarriedCall[] };
}

/**
 * A run continues as new once its history reaches this many events (or Temporal suggests it), by
 * default (CAMPAIGN_EVENTS_PER_RUN): well under the 10 000 a run may reach.
 */
export const CAMPAIGN_EVENTS_PER_RUN = 4_000;

/**
 * A step that wanted calls but claimed none without running out (the window closed under it) is
 * tried again after this long: a timer, so the workflow's clock moves on (it does not within a
 * workflow task of local activities).
 */
const RECHECK_MS = 1_000;

/** Pause, resume and cancel, as the Workflow Updates set them; `version` moves with each. */
interface Control {
  paused: boolean;
  canceled: boolean;
  version: number;
  /** A step (record, claim, start the claimed calls) is under way. */
  stepping: boolean;
  ended: CampaignStatus | null;
}

type Steps = ReturnType<typeof proxyActivities<Activities>>;

/**
 * An outbound campaign (workflow id = the `cmp_…` id; docs/campaigns.md): calls its contacts,
 * at most `concurrency` at once, only within calling hours, each call a child `phoneCallWorkflow`
 * whose id is derived from (campaign, contact, attempt); retries per the plan; paused, resumed and
 * canceled by Workflow Updates; continues as new in batches, handing its calls under way on.
 */
export async function campaignWorkflow(input: CampaignWorkflowInput): Promise<{ status: CampaignStatus }> {
  const steps = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  // a step is a local activity: no task queue round trip between a call's end and the next call, and
  // one marker event instead of three (run again after a crash, it answers the same calls: its stepId)
  const { advanceCampaign, recordedCallEnds } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  const calls = new CampaignCalls(input.calls, input.carried?.calls);
  const control: Control = {
    paused: input.carried?.paused ?? false,
    // a canceled run that continues as new waits for its calls under way in the next
    canceled: input.carried?.canceled ?? false,
    version: 0,
    stepping: false,
    ended: null,
  };
  handleControls(input, steps, control, calls);
  setHandler(campaignCallEndedSignal, ({ callId, status, endedReason }) =>
    calls.ended(callId, { status, endedReason }),
  );

  let seq = 0;
  let remaining = Number.POSITIVE_INFINITY;
  let dueAt = 0; // nothing is due to be claimed before this (ms): the next retry, when all else is claimed
  let first = true;
  for (;;) {
    const info = workflowInfo();
    const rollover =
      info.historyLength >= (input.eventsPerRun ?? CAMPAIGN_EVENTS_PER_RUN) || info.continueAsNewSuggested;
    await calls.lookAfterCarried(Date.now(), recordedCallEnds);
    const window = callingWindow(input.callingHours, input.clock, Date.now());
    const placing = !control.paused && !control.canceled && !rollover && window.open;
    const want = placing && Date.now() >= dueAt ? input.concurrency - calls.inFlight : 0;
    if (want > 0 || calls.hasFinished || first) {
      control.stepping = true;
      const step = await advanceCampaign({
        campaignId: input.campaignId,
        stepId: `${info.runId}:${seq++}`,
        outcomes: calls.takeFinished(),
        want,
        now: Date.now(),
        claimUntil: window.open ? Date.now() + window.changesInMs : null,
      });
      await calls.start(step.calls);
      control.stepping = false;
      first = false;
      remaining = step.remaining;
      if (want > 0 && step.calls.length === 0 && !step.exhausted) dueAt = Date.now() + RECHECK_MS;
      else if (want > 0) dueAt = step.exhausted ? (step.nextRetryAt ?? Number.POSITIVE_INFINITY) : 0;
      else if (step.nextRetryAt !== null) dueAt = Math.min(dueAt, step.nextRetryAt);
      continue;
    }
    if (calls.openCount === 0 && (control.canceled || remaining === 0)) break;
    // the calls under way go on into the next run, which their ends reach (runs before this change
    // let them end first, their slots idle meanwhile)
    if (rollover && (calls.openCount === 0 || patched('campaign-carries-calls-over'))) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof campaignWorkflow>({
        ...input,
        carried: {
          paused: control.paused,
          canceled: control.canceled,
          runs: (input.carried?.runs ?? 0) + 1,
          calls: calls.carryOver(Date.now()),
        },
      });
    }
    const seen = control.version;
    const openSeen = calls.openCount;
    const wakeIn = earliest(
      placing || (!control.paused && !control.canceled && !window.open) ? wakeInMs(window, dueAt) : undefined,
      calls.carriedWakeIn(Date.now()),
    );
    await condition(
      () => calls.hasFinished || control.version !== seen || calls.openCount !== openSeen,
      wakeIn,
    );
  }
  const { status } = await steps.finishCampaign({ campaignId: input.campaignId });
  control.ended = status;
  await condition(allHandlersFinished);
  return { status };
}

const earliest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/** How long to sleep with nothing to record: until the window opens, or the next retry is due. */
function wakeInMs(window: { open: boolean; changesInMs: number }, dueAt: number): number | undefined {
  if (!window.open) return window.changesInMs;
  if (dueAt === Number.POSITIVE_INFINITY) return undefined;
  return Math.max(1, dueAt - Date.now());
}

/** The Workflow Updates: each answers once its change is recorded and no step is under way. */
function handleControls(input: CampaignWorkflowInput, steps: Steps, control: Control, calls: CampaignCalls) {
  const state = (): CampaignState => ({
    status: control.ended ?? (control.canceled ? 'canceled' : control.paused ? 'paused' : 'running'),
    callsInFlight: calls.inFlight,
  });
  const notCanceled = () => {
    if (control.canceled)
      throw ApplicationFailure.nonRetryable('The campaign was canceled', 'CampaignCanceled');
  };
  const apply = async (change: () => void, status: 'running' | 'paused' | 'canceled') => {
    // a stop takes effect at once; a resume once recorded (a step claims only for a running row)
    if (status !== 'running') change();
    await steps.setCampaignStatus({ campaignId: input.campaignId, status });
    if (status === 'running') change();
    control.version += 1;
    // a step claimed before the change has started its calls before the answer: none follows it
    await condition(() => !control.stepping);
    return state();
  };
  setHandler(campaignStateQuery, state);
  setHandler(pauseCampaignUpdate, () => apply(() => (control.paused = true), 'paused'), {
    validator: notCanceled,
  });
  setHandler(resumeCampaignUpdate, () => apply(() => (control.paused = false), 'running'), {
    validator: notCanceled,
  });
  setHandler(cancelCampaignUpdate, () =>
    control.canceled ? Promise.resolve(state()) : apply(() => (control.canceled = true), 'canceled'),
  );
}
