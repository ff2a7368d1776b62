/**
 * Telnyx's Call Control webhooks (developers.telnyx.com, "Call Control" webhooks), as far as the
 * platform reads them: a JSON body `{ data: { record_type: "event", id, event_type, occurred_at,
 * payload } }`, the payload naming the call (`call_control_id`, its leg and session), its parties,
 * its direction (`incoming`, `outgoing`), the `client_state` of the command that started it and, on
 * `call.hangup`, why it ended (`hangup_cause`). Pure: zod only (the tests' carrier double builds
 * these bodies too).
 */
import { z } from 'zod';
import type { CallStatus } from '../calls/call-statuses';

export const TelnyxCallPayload = z.object({
  call_control_id: z.string().min(1).max(256),
  call_leg_id: z.string().max(256).optional(),
  call_session_id: z.string().max(256).optional(),
  connection_id: z.string().max(64).optional(),
  from: z.string().max(256).optional(),
  to: z.string().max(256).optional(),
  direction: z.enum(['incoming', 'outgoing']).optional(),
  state: z.string().max(64).optional(),
  client_state: z.string().max(4096).nullable().optional(),
  hangup_cause: z.string().max(64).optional(),
  hangup_source: z.string().max(64).optional(),
  start_time: z.string().max(64).optional(),
  end_time: z.string().max(64).optional(),
});
export type TelnyxCallPayload = z.infer<typeof TelnyxCallPayload>;

export const TelnyxWebhookBody = z.object({
  data: z.object({
    record_type: z.literal('event').optional(),
    /** The event's id: a webhook Telnyx delivers again has the same one. */
    id: z.string().min(1).max(128),
    event_type: z.string().min(1).max(64),
    occurred_at: z.string().max(64).optional(),
    payload: TelnyxCallPayload,
  }),
  meta: z
    .object({ attempt: z.number().int().optional(), delivered_to: z.string().max(2048).optional() })
    .optional(),
});
export type TelnyxWebhookBody = z.infer<typeof TelnyxWebhookBody>;

/** The call status a `call.hangup`'s `hangup_cause` means, in the platform's (Twilio's) words. */
export function statusOfHangupCause(cause: string | undefined): CallStatus {
  switch (cause) {
    case 'normal_clearing':
    case 'time_limit':
      return 'completed';
    case 'user_busy':
      return 'busy';
    case 'timeout':
    case 'no_answer':
      return 'no-answer';
    case 'originator_cancel':
      return 'canceled';
    default:
      // call_rejected, not_found, unspecified, and any cause Telnyx adds
      return 'failed';
  }
}

/**
 * The call status an event reports, if it reports one: `call.initiated` (an outgoing call dialled)
 * is `queued`, `call.answered` `in-progress`, `call.hangup` its cause's. Other events (streaming,
 * bridging, playback) change no status.
 */
export function statusOfEvent(event: TelnyxWebhookBody['data']): CallStatus | undefined {
  switch (event.event_type) {
    case 'call.initiated':
      return 'queued';
    case 'call.answered':
      return 'in-progress';
    case 'call.hangup':
      return statusOfHangupCause(event.payload.hangup_cause);
    default:
      return undefined;
  }
}
