/**
 * A call's statuses as Twilio names them (docs/api-contract.md "Calls"), and how a status merges
 * into a call's: statuses only move forward (queued < ringing < in-progress < a terminal one), a
 * terminal status is final, a repeated one changes nothing. Pure: the call's workflow imports it.
 */

export const CALL_STATUSES = [
  'queued',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'no-answer',
  'failed',
  'canceled',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const TERMINAL_CALL_STATUSES = ['completed', 'busy', 'no-answer', 'failed', 'canceled'] as const;

export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

/** Why a call ended, besides the carrier's own words (a 4xx's message is kept after `carrier_refused: `). */
export type CallEndedReason =
  | 'completed'
  | 'busy'
  | 'no_answer'
  | 'canceled'
  | 'hangup'
  | 'max_duration'
  /** The agent hung up (its `end_call` tool), after its closing line played. */
  | 'agent_ended'
  /** An answering machine took the outbound call (the persona's voicemail message was left). */
  | 'voicemail'
  | 'carrier_unreachable'
  | 'failed'
  | `carrier_refused: ${string}`;

const RANK: Record<CallStatus, number> = {
  queued: 0,
  ringing: 1,
  'in-progress': 2,
  completed: 3,
  busy: 3,
  'no-answer': 3,
  failed: 3,
  canceled: 3,
};

export const isTerminal = (status: CallStatus): boolean => RANK[status] === 3;

/** Whether `next` moves a call that is `current` forward: never back, never past a terminal status. */
export const advances = (current: CallStatus, next: CallStatus): boolean =>
  !isTerminal(current) && RANK[next] > RANK[current];

/** The ended reason a terminal status gives when nothing else (a hang-up, a timer) decided it. */
export function endedReasonOf(status: CallStatus): CallEndedReason {
  switch (status) {
    case 'no-answer':
      return 'no_answer';
    case 'busy':
    case 'canceled':
    case 'failed':
    case 'completed':
      return status;
    default:
      return 'completed';
  }
}
