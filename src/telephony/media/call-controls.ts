import type { CallTransfer, TransferOutcome } from '../../../workflows/messages';
import {
  type CallControls,
  isPersonaDestination,
  type TransferDestination,
  type TransferRequest,
} from '../../sessions';
import { dtmfTones } from '../audio';

/** What the agent says when it ends a call (`end_call`) with nothing said in its last reply. */
export const AGENT_CLOSING_LINE = 'Thank you for calling. Goodbye.';

/** The tones' rate: the line's own, so they go out as they were made. */
const TONE_SAMPLE_RATE = 8000;

type Transfer = NonNullable<CallControls['transfer']>;

/**
 * What the agent may do to a phone call (its call tools, src/sessions/turn/call-tools.ts): end it
 * once its reply has played, press keys as in-band tones, and transfer it to a listed destination:
 * a number or SIP address through the carrier, another persona as a handoff.
 */
export function phoneCallControls(
  destinations: TransferDestination[] | undefined,
  call: {
    endCall(): void;
    toPersona: Transfer;
    /** A cold transfer through the call's workflow (absent: only personas are offered). */
    toLine?(transfer: CallTransfer): Promise<TransferOutcome>;
  },
): CallControls {
  return {
    endCall: () => call.endCall(),
    digitTones: (digits) => ({ pcm: dtmfTones(digits, TONE_SAMPLE_RATE), sampleRate: TONE_SAMPLE_RATE }),
    destinations: (destinations ?? []).filter((d) => call.toLine || isPersonaDestination(d)),
    transfer: (request: TransferRequest) =>
      isPersonaDestination(request.destination) ? call.toPersona(request) : toLine(call.toLine!, request),
  };
}

/** A transfer to a number or SIP address: cold, through the call's workflow (which emits `call.transferred`). */
async function toLine(
  transfer: (t: CallTransfer) => Promise<TransferOutcome>,
  { destination, mode, requestId }: TransferRequest,
): ReturnType<Transfer> {
  if (mode === 'warm')
    return { ok: false, error: 'Warm transfers are not available on phone lines yet: transfer cold' };
  const outcome = await transfer({ destination: destination.destination, requestId });
  return outcome.ok ? { ok: true, message: `The caller was put through to ${destination.name}.` } : outcome;
}
