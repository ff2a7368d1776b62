import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { answeredBySignal, type CarrierAnsweredBy } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { notFound, validationFailed } from '../../http/errors';
import { CALL_STATUSES } from './call-statuses';
import { signalCall, signalCarrierStatus, signedRequest, webhookHandler } from './carrier-webhooks';
import { answerIncomingCall } from './inbound-calls';
import { dialEndedRequest, TwilioDialEndedForm, whisperRequest } from './twilio-transfer-callbacks';

/** Twilio's status callback, as far as the platform reads it. */
const TwilioStatusForm = z.object({
  CallSid: z.string().min(1).max(64),
  // the `initiated` event's callback says `initiated`: the call is still queued
  CallStatus: z.enum([...CALL_STATUSES, 'initiated']).transform((s) => (s === 'initiated' ? 'queued' : s)),
  CallDuration: z.coerce.number().int().min(0).optional(),
  SequenceNumber: z.coerce.number().int().min(0).optional(),
  Timestamp: z.string().max(64).optional(),
});

/** A signed request's form, checked against `schema`: 400 naming each field otherwise. */
async function signedForm<T>(ctx: AppContext, req: Request, schema: z.ZodType<T>) {
  const { number, rawBody } = await signedRequest(ctx, req, 'twilio');
  const parsed = schema.safeParse(Object.fromEntries(new URLSearchParams(rawBody)));
  if (!parsed.success)
    throw validationFailed(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return { number, form: parsed.data };
}

/** When the carrier says it happened: Twilio's RFC 1123 `Timestamp`, else now. */
function whenOf(timestamp: string | undefined): string {
  const at = timestamp ? new Date(timestamp) : new Date();
  return Number.isNaN(at.getTime()) ? new Date().toISOString() : at.toISOString();
}

/**
 * POST /api/v2/telephony/twilio/status/:phoneNumberId: a call's status change, signed by Twilio
 * with the number's auth token over PUBLIC_URL + the path and query it requested. The call is the
 * one the query's `callId` names (outbound calls) or the number's call with that `CallSid`; its
 * workflow gets the status as a signal and merges it (forward only, once). 204; 403 and nothing
 * done for a bad or missing signature.
 */
async function statusCallback(ctx: AppContext, req: Request, res: Response) {
  const { number, form: s } = await signedForm(ctx, req, TwilioStatusForm);
  const found = await signalCarrierStatus(ctx, req, number, {
    status: s.CallStatus,
    sequence: s.SequenceNumber,
    at: whenOf(s.Timestamp),
    carrierCallId: s.CallSid,
    durationS: s.CallDuration,
  });
  if (!found) throw notFound('Call');
  res.status(204).end();
}

/** Twilio's asynchronous AMD callback (https://www.twilio.com/docs/voice/answering-machine-detection). */
const TwilioAnsweredByForm = z.object({
  CallSid: z.string().min(1).max(64),
  AnsweredBy: z.enum([
    'human',
    'machine_start',
    'machine_end_beep',
    'machine_end_silence',
    'machine_end_other',
    'fax',
    'unknown',
  ]),
  MachineDetectionDuration: z.coerce.number().int().min(0).optional(),
});

/**
 * POST /api/v2/telephony/twilio/answered-by/:phoneNumberId: who answered an outbound call, signed as
 * a status callback is. The call's workflow gets the verdict as a signal; its media stream, which
 * waits for it before it greets, greets a person or leaves the voicemail message on a machine
 * (docs/telephony.md "Voicemail"). 204; 403 and nothing done for a bad or missing signature.
 */
async function answeredByCallback(ctx: AppContext, req: Request, res: Response) {
  const { number, form } = await signedForm(ctx, req, TwilioAnsweredByForm);
  const said = form.AnsweredBy;
  const verdict: CarrierAnsweredBy = {
    answeredBy: said.startsWith('machine_') ? 'machine' : (said as CarrierAnsweredBy['answeredBy']),
    beep: said === 'machine_end_beep',
  };
  const found = await signalCall(ctx, req, number, form.CallSid, (handle) =>
    handle.signal(answeredBySignal, verdict),
  );
  if (!found) throw notFound('Call');
  res.status(204).end();
}

/** Twilio's voice webhook, as far as the platform reads it; a caller without a number is `anonymous`. */
const TwilioVoiceForm = z.object({
  CallSid: z.string().min(1).max(64),
  From: z
    .string()
    .max(64)
    .transform((v) => (/^\+?[0-9]{1,15}$/.test(v) ? v : 'anonymous')),
  To: z
    .string()
    .max(64)
    .transform((v) => (/^\+?[0-9]{1,15}$/.test(v) ? v : 'unknown')),
});

/**
 * POST /api/v2/telephony/twilio/voice/:phoneNumberId (the number's `inboundUrl`): an incoming call,
 * signed as a status callback is (403 and nothing created otherwise). Answers TwiML: the call
 * connected to its media stream, or a polite refusal when the number has no persona to answer.
 */
async function voiceWebhook(ctx: AppContext, req: Request, res: Response) {
  const { number, form } = await signedForm(ctx, req, TwilioVoiceForm);
  const twiml = await answerIncomingCall(ctx, number, {
    carrierCallId: form.CallSid,
    from: form.From,
    to: form.To,
  });
  res.status(200).type('text/xml').send(twiml);
}

/** Twilio's webhooks, under /twilio: form-encoded, read raw for their signature. */
export function twilioWebhooks(ctx: AppContext): Router {
  const router = express.Router();
  router.use(express.text({ type: 'application/x-www-form-urlencoded', limit: '64kb' }));
  router.post('/status/:phoneNumberId', webhookHandler(ctx, statusCallback));
  router.post('/voice/:phoneNumberId', webhookHandler(ctx, voiceWebhook));
  router.post('/answered-by/:phoneNumberId', webhookHandler(ctx, answeredByCallback));
  // a warm transfer's whisper and its dial's end (docs/telephony.md "Warm transfers")
  router.post(
    '/transfer/whisper/:phoneNumberId',
    webhookHandler(ctx, async (c, req, res) => {
      const { number } = await signedRequest(c, req, 'twilio');
      await whisperRequest(c, req, res, number);
    }),
  );
  router.post(
    '/transfer/dial-ended/:phoneNumberId',
    webhookHandler(ctx, async (c, req, res) =>
      dialEndedRequest(c, req, res, await signedForm(c, req, TwilioDialEndedForm)),
    ),
  );
  return router;
}
