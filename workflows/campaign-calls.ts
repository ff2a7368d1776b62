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

/**
 * A campaign's calls under way, each a child workflow (`phoneCallWorkflow`, workflow id = the call
 * id, on the conversations queue), and the outcomes of those that ended, until recorded. A call
 * holds its slot until it says it ended (`campaignCallEndedSignal`, sent before it records its end)
 * or its workflow completes, whichever comes first; its workflow stays open until it completes. A
 * child is abandoned, never cancelled, with its parent: a campaign's end hangs up no one.
 */
export class CampaignCalls {
  /** Calls holding a slot. */
  private readonly running = new Map<string, ClaimedCall>();
  /** Calls whose workflow has not completed yet (those holding a slot, and those recording their end). */
  private readonly open = new Set<string>();
  private finished: AttemptOutcome[] = [];

  constructor(private readonly settings: CampaignCallSettings) {}

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
