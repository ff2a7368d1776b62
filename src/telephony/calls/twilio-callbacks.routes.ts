import { WorkflowNotFoundError } from '@temporalio/client';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { carrierStatusSignal } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { ApiError, forbidden, notFound, validationFailed } from '../../http/errors';
import { carrierFor } from '../carriers/carrier-for';
import { openCredentials } from '../phone-numbers/carrier-credentials';
import { PhoneNumber } from '../phone-numbers/phone-number.entity';
import { publicBaseUrl } from '../phone-numbers/phone-numbers.service';
import { paramsOfForm } from '../twilio/signature';
import { CALL_STATUSES } from './call-statuses';
import { loadCall } from './call-steps';
import { answerIncomingCall } from './inbound-calls';

/** Where the carriers' webhooks arrive, without an API key: each is signed by the number's carrier. */
export const TELEPHONY_ROOT = '/api/v2/telephony';

/** Twilio's status callback, as far as the platform reads it. */
const TwilioStatusForm = z.object({
  CallSid: z.string().min(1).max(64),
  // the `initiated` event's callback says `initiated`: the call is still queued
  CallStatus: z.enum([...CALL_STATUSES, 'initiated']).transform((s) => (s === 'initiated' ? 'queued' : s)),
  CallDuration: z.coerce.number().int().min(0).optional(),
  SequenceNumber: z.coerce.number().int().min(0).optional(),
  Timestamp: z.string().max(64).optional(),
});

const pnId = z.string().regex(/^pn_[A-Za-z0-9]{1,56}$/);
const callIdQuery = z.object({
  callId: z
    .string()
    .regex(/^call_[A-Za-z0-9]{1,56}$/)
    .optional(),
});

/** A request's form, parsed and checked against the number's carrier signature: 404 / 403 otherwise. */
async function signedForm(ctx: AppContext, req: Request) {
  const id = pnId.safeParse(req.params.phoneNumberId);
  const number = id.success ? await ctx.orm.em.fork().findOne(PhoneNumber, { id: id.data }) : null;
  if (!number) throw notFound('Phone number');
  const carrier = carrierFor(ctx.config, openCredentials(ctx.encryptor, number));
  const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
  const params = paramsOfForm(form);
  const url = publicBaseUrl(ctx.config) + req.originalUrl;
  if (!carrier?.verifyWebhook(url, req.headers, params))
    throw forbidden('Invalid or missing carrier signature');
  return { number, form: Object.fromEntries(form) };
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
  const { number, form } = await signedForm(ctx, req);
  const parsed = TwilioStatusForm.safeParse(form);
  if (!parsed.success)
    throw validationFailed(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const query = callIdQuery.safeParse(req.query);
  const s = parsed.data;
  const knex = ctx.orm.em.getConnection().getKnex();
  const byQuery = query.success && query.data.callId ? await loadCall(ctx, query.data.callId) : undefined;
  const callId =
    byQuery?.phone_number_id === number.id
      ? byQuery.id
      : (
          await knex.raw<{ rows: { id: string }[] }>(
            'select id from calls where phone_number_id = ? and carrier_call_id = ? limit 1',
            [number.id, s.CallSid],
          )
        ).rows[0]?.id;
  if (!callId) throw notFound('Call');
  try {
    await ctx.temporal.workflow.getHandle(callId).signal(carrierStatusSignal, {
      status: s.CallStatus,
      sequence: s.SequenceNumber,
      at: whenOf(s.Timestamp),
      carrierCallId: s.CallSid,
      durationS: s.CallDuration,
    });
  } catch (error) {
    // the call's workflow is over: the call has ended, and a late status changes nothing
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
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
  const { number, form } = await signedForm(ctx, req);
  const parsed = TwilioVoiceForm.safeParse(form);
  if (!parsed.success)
    throw validationFailed(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const twiml = await answerIncomingCall(ctx, number, {
    carrierCallId: parsed.data.CallSid,
    from: parsed.data.From,
    to: parsed.data.To,
  });
  res.status(200).type('text/xml').send(twiml);
}

/** Answers an error with the project's error body (a carrier shows it in its debugger). */
function answerError(error: unknown, res: Response, next: NextFunction) {
  if (error instanceof ApiError) res.status(error.status).json(error.toBody());
  else next(error);
}

/**
 * The carriers' webhooks (docs/telephony.md), mounted at TELEPHONY_ROOT before the JSON-only body
 * rule: they are form-encoded, and authenticated by the carrier's signature, not an API key.
 */
export function telephonyWebhooks(ctx: AppContext): Router {
  const router = express.Router();
  router.use(express.text({ type: 'application/x-www-form-urlencoded', limit: '64kb' }));
  router.post('/twilio/status/:phoneNumberId', (req, res, next) => {
    statusCallback(ctx, req, res).catch((error) => answerError(error, res, next));
  });
  router.post('/twilio/voice/:phoneNumberId', (req, res, next) => {
    voiceWebhook(ctx, req, res).catch((error) => answerError(error, res, next));
  });
  return router;
}
