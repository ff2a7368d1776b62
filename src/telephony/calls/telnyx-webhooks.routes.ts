import express, { type Request, type Response, type Router } from 'express';
import type { AppContext } from '../../common/context';
import { validationFailed } from '../../http/errors';
import type { TelnyxCarrierClient } from '../carriers/telnyx';
import type { PhoneNumber } from '../phone-numbers/phone-number.entity';
import { statusOfEvent, TelnyxWebhookBody } from '../telnyx/webhook-events';
import { signalCarrierStatus, signedRequest, webhookHandler } from './carrier-webhooks';
import { admitIncomingCall } from './inbound-calls';

/** Event ids handled lately by this process: a webhook Telnyx delivers again is answered and skipped. */
const SEEN_EVENTS_KEPT = 2048;
const seenEvents = new Set<string>();
function remember(eventId: string): void {
  seenEvents.add(eventId);
  if (seenEvents.size > SEEN_EVENTS_KEPT) seenEvents.delete(seenEvents.values().next().value!);
}

/** A party's number as the platform keeps it, else what stands for it. */
const partyOf = (value: string | undefined, otherwise: string) =>
  value && /^\+?[0-9]{1,15}$/.test(value) ? value : otherwise;

/** When Telnyx says it happened (`occurred_at`), else now. */
function whenOf(occurredAt: string | undefined): string {
  const at = occurredAt ? new Date(occurredAt) : new Date();
  return Number.isNaN(at.getTime()) ? new Date().toISOString() : at.toISOString();
}

/**
 * An incoming call (`call.initiated`, `incoming`): admitted (the call row, its workflow) and then
 * answered through Call Control onto its media stream, its call token as `client_state`; a number
 * that cannot answer rejects it, and nothing is created. The answer's `command_id` is the event's
 * id: a redelivered `call.initiated` finds the same call, and Telnyx ignores the second answer.
 */
async function incomingCall(
  ctx: AppContext,
  number: PhoneNumber,
  carrier: TelnyxCarrierClient,
  event: TelnyxWebhookBody['data'],
) {
  const { payload } = event;
  const admitted = await admitIncomingCall(ctx, number, {
    carrierCallId: payload.call_control_id,
    from: partyOf(payload.from, 'anonymous'),
    to: partyOf(payload.to, 'unknown'),
  });
  if (!admitted) return carrier.rejectCall(payload.call_control_id, event.id);
  await carrier.answerCall({
    carrierCallId: payload.call_control_id,
    streamUrl: admitted.streamUrl,
    callToken: admitted.callToken,
    commandId: event.id,
  });
}

/**
 * POST /api/v2/telephony/telnyx/voice/:phoneNumberId (the number's `inboundUrl`, the Call Control
 * application's webhook URL) and …/status/:phoneNumberId (an outbound call's `webhook_url`, with
 * `?callId=`): every event of the number's calls, signed by Telnyx (Ed25519 over the timestamp and
 * the raw body; 403 and nothing done otherwise). An incoming `call.initiated` is answered; every
 * other event that reports a status goes to the call's workflow. 204.
 */
async function telnyxWebhook(ctx: AppContext, req: Request, res: Response) {
  const { number, carrier, rawBody } = await signedRequest(ctx, req, 'telnyx');
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    throw validationFailed(['body: must be JSON']);
  }
  const parsed = TelnyxWebhookBody.safeParse(json);
  if (!parsed.success)
    throw validationFailed(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const event = parsed.data.data;
  if (seenEvents.has(event.id)) return void res.status(204).end();
  if (event.event_type === 'call.initiated' && event.payload.direction === 'incoming') {
    // a telnyx number's carrier is Telnyx's client (carrier-for.ts)
    await incomingCall(ctx, number, carrier as TelnyxCarrierClient, event);
  } else {
    const status = statusOfEvent(event);
    // a call the platform never admitted (one it rejected) has nothing to update: still a 204
    if (status) {
      const carrierCallId = event.payload.call_control_id;
      await signalCarrierStatus(ctx, req, number, { status, at: whenOf(event.occurred_at), carrierCallId });
    }
  }
  remember(event.id);
  res.status(204).end();
}

/** Telnyx's webhooks, under /telnyx: JSON, read raw for their signature. */
export function telnyxWebhooks(ctx: AppContext): Router {
  const router = express.Router();
  router.use(express.text({ type: 'application/json', limit: '64kb' }));
  router.post('/voice/:phoneNumberId', webhookHandler(ctx, telnyxWebhook));
  router.post('/status/:phoneNumberId', webhookHandler(ctx, telnyxWebhook));
  return router;
}
