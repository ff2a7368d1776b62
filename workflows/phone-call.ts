import {
  ApplicationFailure,
  condition,
  deprecatePatch,
  setHandler,
  setWorkflowOptions,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  advances,
  type CallDirection,
  type CallStatus,
  endedReasonOf,
  isTerminal,
} from '../src/telephony/calls/call-statuses';
import { CallStatusKey } from '../src/temporal/search-attributes';
import { type CallSteps, callSteps, placeUnlessStopped, tellParentOfEnd } from './call-steps';
import { setTransferHandlers } from './call-transfers';
import {
  answeredBySignal,
  awaitAnsweredByUpdate,
  type CallState,
  type CarrierAnsweredBy,
  type CarrierStatus,
  callStateQuery,
  carrierStatusSignal,
  type HangupReason,
  hangupUpdate,
  type StreamConnected,
  streamConnectedUpdate,
} from './messages';
import { pinnedWhenVersioned } from './versioning';

export interface PhoneCallInput {
  callId: string;
  direction: CallDirection;
  /** The status the call was committed with (`queued` outbound, `ringing` inbound). */
  status: CallStatus;
  /** Hang up this long after the answer. */
  maxDurationS: number;
  /** CALL_UNCONFIRMED_WAIT_S: how long a call placed with an unknown outcome waits for the carrier. */
  unconfirmedWaitS: number;
  /** CARRIER_TIMEOUT_MS: bounds the placing activity. */
  carrierTimeoutMs: number;
  /** A campaign's call: tells its campaign it ended before recording the end (workflows/campaign-calls.ts). */
  tellsParentItsEnd?: boolean;
}

/** How long a hang-up waits for the carrier's `completed` before the call is ended here. */
const HANGUP_CONFIRM_MS = 30_000;
/**
 * At `maxDurationS`, a call with a media stream gives the stream this long to say its closing line
 * and hang up (`max_duration`) before the workflow hangs up itself.
 */
const CLOSING_LINE_GRACE_MS = 15_000;

/**
 * One phone call (workflow id = the `call_…` id; docs/telephony.md "Calls"): places it (outbound, at
 * most once), merges the carrier's status callbacks forward only (a repeated or late one changes
 * nothing), holds the `maxDurationS` timer from the answer (the call's media stream says a closing
 * line then), hangs up through the carrier when asked or when the timer fires, owns the call's session, and on a terminal status ends it all and
 * emits `call.ended` (`call.started` with the answer).
 */
export async function phoneCallWorkflow(input: PhoneCallInput): Promise<CallState> {
  const { steps, placeCall } = callSteps(input);
  const state: CallState = { status: input.status, sessionId: null, carrierCallId: null, endedReason: null };
  let transferred = false;
  const pending: CarrierStatus[] = [];
  let stopReason: StopReason | undefined;
  let hangUpSent = false;

  setHandler(callStateQuery, () => state);
  setHandler(carrierStatusSignal, (s) => void pending.push(s));
  setHandler(hangupUpdate, async (asked?: { reason?: HangupReason }) => {
    stopReason ??= asked?.reason ?? 'hangup';
    await condition(() => hangUpSent || state.endedReason !== null);
    return state;
  });
  const stream = handleStreamConnected(input.callId, state, pending, steps);
  handleAnsweredBy(state);
  setTransferHandlers({
    callId: input.callId,
    carrierTimeoutMs: input.carrierTimeoutMs,
    state,
    inProgress: () =>
      state.status === 'in-progress' &&
      state.endedReason === null &&
      stopReason === undefined &&
      !transferred,
    transferred: () => {
      transferred = true;
    },
  });

  // the state says ended once the row does: a hang-up answered then reads the call ended
  const finish = async (status: CallStatus, endedReason: string, extra: Partial<CarrierStatus> = {}) => {
    // a session still starting (the stream connected as the call ended) is ended with the call
    const session = stream.session();
    if (session) {
      deprecatePatch('call-finish-waits-for-session'); // retired: every open run has it
      await session.catch(() => undefined);
    }
    if (input.tellsParentItsEnd) await tellParentOfEnd({ callId: input.callId, status, endedReason });
    await steps.finishCall({
      callId: input.callId,
      status,
      endedReason,
      at: extra.at ?? new Date().toISOString(),
      durationS: extra.durationS,
      carrierCallId: extra.carrierCallId,
    });
    state.status = status;
    state.endedReason = endedReason;
    upsertSearchAttributes([{ key: CallStatusKey, value: status }]);
  };

  if (input.direction === 'outbound') {
    // placing failed for good (the carrier never reachable, or the database down), or a hang-up
    // came while it could not be: the call ends so, never its workflow, and its row hears of it
    const placed = await placeUnlessStopped(placeCall, input.callId, () => stopReason !== undefined);
    if (placed === 'stopped' || placed === 'failed') {
      await finish(stopReason ? 'canceled' : 'failed', stopReason ?? 'carrier_unreachable');
      return state;
    }
    if (placed.outcome === 'placed') state.carrierCallId = placed.carrierCallId;
    else if (placed.outcome === 'refused') {
      await finish('failed', `carrier_refused: ${placed.reason}`);
      return state;
    } else if (
      !(await condition(() => pending.length > 0 || stopReason !== undefined, input.unconfirmedWaitS * 1000))
    ) {
      await finish('failed', 'carrier_unreachable');
      return state;
    }
  }
  await followCall(input, state, pending, finish, {
    stopReason: () => stopReason,
    // a transferred call is the callee's now: it ends when the carrier says so, as `transferred`
    endedAs: () => stopReason ?? (transferred ? 'transferred' : undefined),
    setStopReason: (r) => {
      if (!transferred) stopReason ??= r;
    },
    hangUp: async () => {
      await steps.hangUpCall({ callId: input.callId });
      hangUpSent = true;
    },
    recordStatus: (s) =>
      steps.recordCallStatus({
        callId: input.callId,
        status: s.status,
        at: s.at,
        carrierCallId: s.carrierCallId,
      }),
  });
  return state;
}

/**
 * The media transport's `streamConnected`: the stream runs only on an answered call (an inbound
 * call's carrier may never say `answered`), so it counts as the answer; the call's session is
 * created once, and a stream that connects after the call ended starts none. The caller back from
 * a warm transfer nobody answered is told of (`returnedFrom`), once per return.
 */
function handleStreamConnected(callId: string, state: CallState, pending: CarrierStatus[], steps: CallSteps) {
  let session: Promise<{ sessionId: string }> | undefined;
  /** Warm transfers that came back whose return the agent has been told of. */
  let returnsTold = 0;
  setHandler(
    streamConnectedUpdate,
    async () => {
      pending.push({ status: 'in-progress', at: new Date().toISOString() });
      session ??= steps.connectCallSession({ callId });
      const connected = await session;
      state.sessionId = connected.sessionId;
      const answer: StreamConnected = { sessionId: connected.sessionId };
      const warm = state.warmTransfer;
      if (warm?.status === 'returned' && warm.returns > returnsTold) {
        returnsTold = warm.returns;
        answer.returnedFrom = { name: warm.name, dialStatus: warm.dialStatus ?? 'failed' };
      }
      return answer;
    },
    {
      validator: () => {
        if (state.endedReason !== null)
          throw ApplicationFailure.nonRetryable('The call has ended', 'CallEnded');
      },
    },
  );
  return { session: () => session };
}

/**
 * The carrier's answering-machine verdict (outbound calls on a carrier that detects): kept, and
 * handed to the media transport, which asks for it as soon as its stream starts and may wait.
 */
function handleAnsweredBy(state: CallState) {
  let verdict: CarrierAnsweredBy | null = null;
  setHandler(answeredBySignal, (v) => {
    verdict ??= v;
  });
  setHandler(awaitAnsweredByUpdate, async ({ waitMs }: { waitMs: number }) => {
    await condition(() => verdict !== null || state.endedReason !== null, waitMs);
    return verdict;
  });
}

/** Why the platform ends a call: a hang-up asked (and why), or the `maxDurationS` timer. */
type StopReason = HangupReason | 'max_duration';

interface Follow {
  /** Why the platform hangs the call up (undefined: it does not). */
  stopReason(): StopReason | undefined;
  /** The call's `endedReason` when it ends (undefined: as the carrier's status says). */
  endedAs(): StopReason | 'transferred' | undefined;
  setStopReason(reason: 'max_duration'): void;
  hangUp(): Promise<void>;
  recordStatus(s: CarrierStatus): Promise<void>;
}

type Finish = (status: CallStatus, endedReason: string, extra?: Partial<CarrierStatus>) => Promise<void>;

/** The call's life after placing: statuses merged in order of arrival, forward only, until a terminal one. */
async function followCall(
  input: PhoneCallInput,
  state: CallState,
  pending: CarrierStatus[],
  finish: Finish,
  f: Follow,
) {
  let hangUpAsked = false;
  let hangUpDeadline = false;
  while (state.endedReason === null) {
    await condition(
      () => pending.length > 0 || (f.stopReason() !== undefined && !hangUpAsked) || hangUpDeadline,
    );
    const next = pending.shift();
    if (next) {
      state.carrierCallId ??= next.carrierCallId ?? null;
      if (!advances(state.status, next.status)) continue;
      if (isTerminal(next.status)) {
        await finish(next.status, f.endedAs() ?? endedReasonOf(next.status), next);
        break;
      }
      state.status = next.status;
      upsertSearchAttributes([{ key: CallStatusKey, value: next.status }]);
      await f.recordStatus(next);
      if (next.status === 'in-progress') {
        void sleep(input.maxDurationS * 1000).then(async () => {
          // the stream says the closing line then hangs up; the workflow hangs up if it does not
          if (state.sessionId !== null) {
            deprecatePatch('call-closing-line'); // retired: every open run has it
            await condition(() => f.stopReason() !== undefined, CLOSING_LINE_GRACE_MS);
          }
          f.setStopReason('max_duration');
        });
      }
    } else if (f.stopReason() !== undefined && !hangUpAsked) {
      hangUpAsked = true;
      if (state.carrierCallId === null && state.status === 'queued') {
        await finish('canceled', f.stopReason() ?? 'hangup');
        break;
      }
      await f.hangUp();
      void sleep(HANGUP_CONFIRM_MS).then(() => {
        hangUpDeadline = true;
      });
    } else if (hangUpDeadline) {
      // the carrier never confirmed the hang-up: the call is over for the platform
      await finish(state.status === 'in-progress' ? 'completed' : 'canceled', f.stopReason() ?? 'hangup');
    }
  }
}

/**
 * A conversation finishes on the code it started on (docs/operations.md "Deploys"): with Worker
 * Deployments its runs are pinned to their version, so a deploy never changes a live call's code
 * and a change to this workflow needs no `patched()`. (An unversioned worker may declare no
 * behavior: Temporal refuses the task.)
 */
setWorkflowOptions(pinnedWhenVersioned, phoneCallWorkflow);
