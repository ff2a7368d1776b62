import { ChildWorkflowCancellationType, log, ParentClosePolicy, startChild } from '@temporalio/workflow';
import { type CallEnd, outcomeOfCall } from '../src/campaigns/call-outcomes';
import type { AttemptOutcome, ClaimedCall } from '../src/campaigns/campaign-steps';
import {
  AccountIdKey,
  CallDirectionKey,
  CallStatusKey,
  PersonaIdKey,
  PhoneNumberIdKey,
} from '../src/temporal/search-attributes';
import type { phoneCallWorkflow } from './phone-call';

/** What a campaign's calls are started with: the same inputs as a call placed through the API. */
export interface CampaignCallSettings {
  accountId: string;
  phoneNumberId: string;
  personaId: string;
  /** The conversations pool's task queue: where call workflows run. */
  taskQueue: string;
  maxDurationS: number;
  unconfirmedWaitS: number;
  carrierTimeoutMs: number;
}

/** A call under way that a run carries over to the next (continue-as-new), and since when (workflow ms). */
export interface CarriedCall extends ClaimedCall {
  carriedSince: number;
}

/**
 * A carried call not heard from this long after its carry-over, its end not recorded either (its
 * workflow terminated by hand: a call's own timers end it well within its longest duration), gives
 * its slot back as `failed`.
 */
const CARRIED_CALL_GRACE_MS = 15 * 60_000;

/** How often a run looks up the recorded ends of the calls it carries (their rows), while it carries any. */
export const CARRIED_CHECK_MS = 60_000;

/**
 * A campaign's calls under way, each a child workflow (`phoneCallWorkflow`, workflow id = the call
 * id, on the conversations queue), and the outcomes of those that ended, until recorded. A call
 * holds its slot until it says it ended (`campaignCallEndedSignal`, sent before it records its end)
 * or its workflow completes, whichever comes first; its workflow stays open until it completes. A
 * child is abandoned, never cancelled, with its parent: a campaign's end hangs up no one. Calls a
 * run carries over from the one before (continue-as-new) are not its children: each holds its slot
 * until it says it ended, its row says so (the workflow looks every CARRIED_CHECK_MS: a call of a
 * version from before the carry-over tells the run that started it, gone), or CARRIED_CALL_GRACE_MS
 * past its longest duration.
 */
export class CampaignCalls {
  /** Calls holding a slot. */
  private readonly running = new Map<string, ClaimedCall>();
  /** Calls whose workflow has not completed yet (those holding a slot, and those recording their end). */
  private readonly open = new Set<string>();
  /** Calls carried over from an earlier run (no child of this one): when each was first carried. */
  private readonly carried = new Map<string, number>();
  /** When the carried calls' rows are next looked up (workflow ms); set on the first look. */
  private nextCheckAt?: number;
  private finished: AttemptOutcome[] = [];

  constructor(
    private readonly settings: CampaignCallSettings,
    carriedIn: CarriedCall[] = [],
  ) {
    for (const { carriedSince, ...call } of carriedIn) {
      this.running.set(call.callId, call);
      this.open.add(call.callId);
      this.carried.set(call.callId, carriedSince);
    }
  }

  /** The calls under way, for the next run to carry on (continue-as-new); `now`: the workflow's clock. */
  carryOver(now: number): CarriedCall[] {
    return [...this.running.values()].map((c) => ({ ...c, carriedSince: this.carried.get(c.callId) ?? now }));
  }

  /**
   * Looks after the carried calls (`now`: the workflow's clock): gives back the slots of those lost,
   * and every CARRIED_CHECK_MS settles those whose row says they ended (`lookUp`, a local activity).
   */
  async lookAfterCarried(
    now: number,
    lookUp: (input: { callIds: string[] }) => Promise<(CallEnd & { callId: string })[]>,
  ): Promise<void> {
    this.lapseCarried(now);
    this.nextCheckAt ??= now + CARRIED_CHECK_MS;
    if (this.carried.size === 0 || now < this.nextCheckAt) return;
    this.nextCheckAt = now + CARRIED_CHECK_MS;
    for (const end of await lookUp({ callIds: [...this.carried.keys()] })) this.ended(end.callId, end);
  }

  /** When the carried calls next need looking after (ms from `now`, at least 1), or undefined with none. */
  carriedWakeIn(now: number): number | undefined {
    const lapse = this.nextLapseIn(now);
    if (lapse === undefined || this.nextCheckAt === undefined) return lapse;
    return Math.max(1, Math.min(lapse, this.nextCheckAt - now));
  }

  /** Gives back the slots of carried calls not heard from in time (`failed`). */
  private lapseCarried(now: number): void {
    for (const [callId, since] of this.carried) {
      if (now < since + this.carriedLimitMs()) continue;
      log.warn('a carried-over campaign call was not heard from: its slot is given back', { callId });
      this.ended(callId, { status: 'failed', endedReason: 'not_heard_from' });
    }
  }

  /** How long until the next carried call lapses (ms, at least 1), or undefined with none carried. */
  private nextLapseIn(now: number): number | undefined {
    if (this.carried.size === 0) return undefined;
    const first = Math.min(...this.carried.values());
    return Math.max(1, first + this.carriedLimitMs() - now);
  }

  private carriedLimitMs(): number {
    return this.settings.maxDurationS * 1000 + CARRIED_CALL_GRACE_MS;
  }

  /** The slots taken: calls at the carrier now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Calls whose workflow has not completed: the campaign ends (or continues as new) only at 0. */
  get openCount(): number {
    return this.open.size;
  }

  /** A call said it ended (`campaignCallEndedSignal`): its slot is free, its outcome to record. */
  ended(callId: string, end: CallEnd): void {
    this.settle(callId, outcomeOfCall(end));
    // a carried call is no child of this run: no completion follows its word
    if (this.carried.delete(callId)) this.open.delete(callId);
  }

  private settle(callId: string, outcome: AttemptOutcome['outcome']): void {
    const call = this.running.get(callId);
    if (!call) return; // told already
    this.running.delete(callId);
    this.finished.push({ index: call.index, attempt: call.attempt, outcome });
  }

  get hasFinished(): boolean {
    return this.finished.length > 0;
  }

  /** The outcomes of calls that ended since the last time, to record. */
  takeFinished(): AttemptOutcome[] {
    const taken = this.finished;
    this.finished = [];
    return taken;
  }

  /** Starts the claimed calls' workflows; resolves once all have started. */
  async start(calls: ClaimedCall[]): Promise<void> {
    await Promise.all(calls.map((c) => this.startOne(c)));
  }

  private async startOne(call: ClaimedCall): Promise<void> {
    const s = this.settings;
    this.running.set(call.callId, call);
    this.open.add(call.callId);
    const settle = (outcome: AttemptOutcome['outcome']) => {
      this.settle(call.callId, outcome);
      this.open.delete(call.callId);
    };
    try {
      const child = await startChild<typeof phoneCallWorkflow>('phoneCallWorkflow', {
        workflowId: call.callId,
        taskQueue: s.taskQueue,
        args: [
          {
            callId: call.callId,
            direction: 'outbound',
            status: 'queued',
            maxDurationS: s.maxDurationS,
            unconfirmedWaitS: s.unconfirmedWaitS,
            carrierTimeoutMs: s.carrierTimeoutMs,
            tellsParentItsEnd: true,
          },
        ],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
        typedSearchAttributes: [
          { key: AccountIdKey, value: s.accountId },
          { key: PhoneNumberIdKey, value: s.phoneNumberId },
          { key: PersonaIdKey, value: s.personaId },
          { key: CallDirectionKey, value: 'outbound' },
          { key: CallStatusKey, value: 'queued' },
        ],
      });
      void child.result().then(
        (end) => settle(outcomeOfCall(end)),
        () => settle('failed'),
      );
    } catch (error) {
      // never in practice: the call's id is new, and nothing else starts a campaign's calls
      log.error('a campaign call did not start', { callId: call.callId, error: String(error) });
      settle('failed');
    }
  }
}
