import type {
  CallTransfer,
  CarrierAnsweredBy,
  HangupReason,
  TransferOutcome,
} from '../../../workflows/messages';
import type { ConversationSession } from '../../sessions';
import type { CarrierMediaEvent } from '../carriers/carrier';

/** What the call's stream learns when the carrier starts it: the conversation it carries. */
export interface PhoneCallSetup extends ConversationSession {
  callId: string;
  /** Keep each turn's audio (the session's `recording`). */
  recording: boolean;
  /** The call's `maxDurationS`: the closing line is said then, and the call hung up. */
  maxDurationS?: number;
  /** What the agent says when it ends the call (`end_call`) without a goodbye of its own. */
  closingLine?: string;
  /** An outbound call the platform screens for an answering machine: the message it leaves (filled). */
  answeringMachine?: AnsweringMachineSetup;
  /** The carrier transfers warm (Twilio). */
  warmTransfers?: boolean;
  /** The stream is the caller back from a warm transfer nobody answered: the agent says so first. */
  returnedFrom?: { name: string; dialStatus: string };
}

/** What the agent says when a warm transfer comes back: who could not be reached, and why. */
export function transferReturnLine(returned: { name: string; dialStatus: string }): string {
  const why =
    returned.dialStatus === 'busy'
      ? 'the line was busy'
      : returned.dialStatus === 'no-answer'
        ? 'nobody answered'
        : 'the call did not go through';
  return `I'm sorry, I couldn't reach ${returned.name}: ${why}. I'm still here. How else can I help?`;
}

/** On a machine, the voicemail message is left after the beep (null: the call hangs up). */
export interface AnsweringMachineSetup {
  message: string | null;
  /** The carrier detects machines (Twilio's AMD): its verdict decides (`MediaCallDeps.answeredBy`). */
  carrierDetects?: boolean;
}

/** What the agent says when a call reaches its `maxDurationS`, before hanging up. */
export const CALL_CLOSING_LINE =
  'I am sorry, we have reached the time limit for this call. Thank you for calling. Goodbye.';

/** The `start` message, as far as finding the call goes: the stream's id and the call token. */
export type StreamStart = Omit<Extract<CarrierMediaEvent, { event: 'start' }>, 'event'>;

/** What a media stream asks of the calls it belongs to. */
export interface MediaCallDeps {
  /** Checks the stream's call token and gives the call's conversation; throws to refuse the stream. */
  connect(start: StreamStart): Promise<PhoneCallSetup>;
  /** The line is gone (the carrier's `stop`, or the socket closed). */
  ended(callId: string): void;
  /** Hangs the call up through its workflow (its session ended), saying why. */
  hangUp(callId: string, reason: HangupReason): Promise<void>;
  /** The carrier's answering-machine verdict, waited for (null: none came). */
  answeredBy(callId: string): Promise<CarrierAnsweredBy | null>;
  /** Puts the caller through to a number or SIP address through the call's workflow (a cold transfer). */
  transfer(callId: string, transfer: CallTransfer): Promise<TransferOutcome>;
}
