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
    /** A transfer through the call's workflow (absent: only personas are offered). */
    toLine?(transfer: CallTransfer): Promise<TransferOutcome>;
    /** The carrier can transfer warm (Twilio's whisper): else a warm transfer is refused. */
    warm?: boolean;
  },
): CallControls {
  return {
    endCall: () => call.endCall(),
    digitTones: (digits) => ({ pcm: dtmfTones(digits, TONE_SAMPLE_RATE), sampleRate: TONE_SAMPLE_RATE }),
    destinations: (destinations ?? []).filter((d) => call.toLine || isPersonaDestination(d)),
    transfer: (request: TransferRequest) =>
      isPersonaDestination(request.destination)
        ? call.toPersona(request)
        : toLine(call.toLine!, request, call.warm ?? false),
  };
}

/**
 * A transfer to a number or SIP address, through the call's workflow (which emits
 * `call.transferred`). Warm: the destination rings with the summary as its whisper; the caller waits
 * on the line, and comes back to the agent if nobody answers.
 */
async function toLine(
  transfer: (t: CallTransfer) => Promise<TransferOutcome>,
  { destination, mode, summary, requestId }: TransferRequest,
  warmAvailable: boolean,
): ReturnType<Transfer> {
  if (mode === 'warm' && !warmAvailable)
    return { ok: false, error: 'Warm transfers are not available on this carrier: transfer cold' };
  const outcome = await transfer({
    destination: destination.destination,
    requestId,
    ...(mode === 'warm' ? { mode, name: destination.name, summary } : {}),
  });
  if (!outcome.ok) return outcome;
  return mode === 'warm'
    ? {
        ok: true,
        message: `Calling ${destination.name} now, with your summary; the caller waits on the line.`,
      }
    : { ok: true, message: `The caller was put through to ${destination.name}.` };
}
