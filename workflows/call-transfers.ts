import { ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  type CallState,
  type CallTransfer,
  type TransferOutcome,
  transferUpdate,
  warmTransferAnsweredUpdate,
  warmTransferEndedUpdate,
} from './messages';

/** What the transfers need of their call's workflow. */
export interface TransferableCall {
  callId: string;
  carrierTimeoutMs: number;
  state: CallState;
  /** The call is in progress and nothing is ending it. */
  inProgress(): boolean;
  /** The caller was put through: the call ends `transferred` when the carrier says it is over. */
  transferred(): void;
}

/** The Dial statuses (Twilio's `DialCallStatus`) of a callee who answered and talked. */
const ANSWERED_DIAL_STATUSES = new Set(['completed', 'answered']);

/**
 * The agent's transfers (`transfer_call` to a number or SIP address; docs/telephony.md "Transfers"),
 * each asked once at the carrier (no retry: a transfer asked twice dials twice).
 * - Cold: `call.transferred` at once; the call ends `transferred` when the carrier says it is over.
 * - Warm: the destination rings with the summary as its whisper. Its callee answering (the carrier
 *   asks for the whisper) is the transfer (`call.transferred`); a dial that ends unanswered (busy, no
 *   answer, failed) brings the caller back to the agent on a new media stream.
 * Refused while the call is not in progress or a warm transfer is dialling.
 */
export function setTransferHandlers(call: TransferableCall): void {
  const steps = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds' });
  const { transferCall } = proxyActivities<Activities>({
    startToCloseTimeout: call.carrierTimeoutMs + 10_000,
    retry: { maximumAttempts: 1 },
  });
  const { state, callId } = call;
  const dialling = () => state.warmTransfer?.status === 'dialing';
  setHandler(
    transferUpdate,
    async (transfer: CallTransfer): Promise<TransferOutcome> => {
      const { destination, requestId } = transfer;
      const warm = transfer.mode === 'warm';
      if (warm)
        state.warmTransfer = {
          requestId,
          destination,
          name: transfer.name ?? destination,
          summary: transfer.summary ?? '',
          status: 'dialing',
          returns: state.warmTransfer?.returns ?? 0,
        };
      const outcome = await transferCall({ callId, destination, ...(warm ? { warm: { requestId } } : {}) });
      if (!outcome.ok) {
        if (warm) state.warmTransfer = { ...state.warmTransfer!, status: 'returned', dialStatus: 'failed' };
        return { ok: false, error: outcome.error };
      }
      if (warm) return { ok: true };
      call.transferred();
      await steps.recordCallTransfer({ callId, destination, requestId });
      return { ok: true };
    },
    {
      validator: (_transfer: CallTransfer) => {
        if (!call.inProgress() || dialling())
          throw ApplicationFailure.nonRetryable('The call is not in progress', 'CallNotInProgress');
      },
    },
  );
  setHandler(warmTransferAnsweredUpdate, async ({ requestId }) => {
    const warm = state.warmTransfer;
    if (!warm || warm.requestId !== requestId || warm.status === 'returned') return null;
    if (warm.status === 'dialing') {
      warm.status = 'answered';
      call.transferred();
      await steps.recordCallTransfer({ callId, destination: warm.destination, requestId });
    }
    return { summary: warm.summary };
  });
  setHandler(warmTransferEndedUpdate, async ({ requestId, dialStatus }) => {
    const warm = state.warmTransfer;
    if (!warm || warm.requestId !== requestId) return { next: 'hangUp' as const };
    if (warm.status === 'dialing' && ANSWERED_DIAL_STATUSES.has(dialStatus)) {
      // put through without its whisper asked (the callee's side skipped it): transferred all the same
      warm.status = 'answered';
      call.transferred();
      await steps.recordCallTransfer({ callId, destination: warm.destination, requestId });
    }
    if (warm.status === 'answered') return { next: 'hangUp' as const };
    // asked again (the carrier retried its request): the same token number
    if (warm.status === 'dialing') {
      warm.status = 'returned';
      warm.dialStatus = dialStatus;
      warm.returns += 1;
    }
    return { next: 'returnStream' as const, streamTokenSeq: warm.returns };
  });
}
