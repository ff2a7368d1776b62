import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { warmTransferAnsweredUpdate, warmTransferEndedUpdate } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { notFound, validationFailed } from '../../http/errors';
import type { PhoneNumber } from '../phone-numbers/phone-number.entity';
import { connectStreamTwiml, hangUpTwiml, whisperTwiml, xmlSafe } from '../twilio/twiml';
import { loadCall, mediaStreamUrlOf } from './call-steps';
import { mintStreamToken, STREAM_TOKEN_PARAMETER } from './stream-token';

/** The query of a warm transfer's URLs: the call and the transfer (the agent's tool call). */
const WarmTransferQuery = z.object({
  callId: z.string().regex(/^call_[A-Za-z0-9]{1,56}$/),
  transfer: z.string().min(1).max(300),
});

/** Twilio's request when a `<Dial>` ends (its `action`): how the dialled call went. */
export const TwilioDialEndedForm = z.object({
  CallSid: z.string().min(1).max(64),
  DialCallStatus: z.enum(['completed', 'answered', 'busy', 'no-answer', 'failed', 'canceled']),
});

/** The call and transfer a warm transfer's URL names, when the call is this number's: 404 otherwise. */
async function transferOf(ctx: AppContext, req: Request, number: PhoneNumber) {
  const query = WarmTransferQuery.safeParse(req.query);
  if (!query.success)
    throw validationFailed(query.error.issues.map((i) => `query.${i.path.join('.')}: ${i.message}`));
  const call = await loadCall(ctx, query.data.callId);
  if (call?.phone_number_id !== number.id) throw notFound('Call');
  return { callId: call.id, requestId: query.data.transfer, provider: number.provider };
}

/** An update to the call's workflow; null when the workflow is over or refuses it. */
async function updateCall<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError || error instanceof WorkflowUpdateFailedError) return null;
    throw error;
  }
}

/** What the callee hears when the agent gave no summary. */
const NO_SUMMARY = 'You have a call transferred from the virtual agent.';

/**
 * POST /api/v2/telephony/twilio/transfer/whisper/:phoneNumberId (a warm transfer's `<Number url>`,
 * signed): the callee answered. The call's workflow records the transfer (`call.transferred`) and
 * gives the summary, answered as `<Say>` (the callee hears it, then the caller is connected). A
 * transfer that is not the call's under way: an empty document (the callee is connected as is).
 */
export async function whisperRequest(ctx: AppContext, req: Request, res: Response, number: PhoneNumber) {
  const { callId, requestId } = await transferOf(ctx, req, number);
  const whisper = await updateCall(() =>
    ctx.temporal.workflow.getHandle(callId).executeUpdate(warmTransferAnsweredUpdate, {
      args: [{ requestId }],
      updateId: `${requestId}:answered`,
    }),
  );
  const twiml = whisper
    ? whisperTwiml(xmlSafe(whisper.summary) || NO_SUMMARY)
    : '<?xml version="1.0" encoding="UTF-8"?><Response/>';
  res.status(200).type('text/xml').send(twiml);
}

/**
 * POST /api/v2/telephony/twilio/transfer/dial-ended/:phoneNumberId (a warm transfer's `<Dial
 * action>`, signed): the dial is over. After a callee who answered, `<Hangup/>` (their talk is
 * done); busy, unanswered or failed: the caller back on a media stream, with the call's next stream
 * token, and the agent says so.
 */
export async function dialEndedRequest(
  ctx: AppContext,
  req: Request,
  res: Response,
  found: { number: PhoneNumber; form: z.infer<typeof TwilioDialEndedForm> },
) {
  const { callId, requestId, provider } = await transferOf(ctx, req, found.number);
  const dialStatus = found.form.DialCallStatus;
  const next = await updateCall(() =>
    ctx.temporal.workflow.getHandle(callId).executeUpdate(warmTransferEndedUpdate, {
      args: [{ requestId, dialStatus }],
      updateId: `${requestId}:ended`,
    }),
  );
  if (!next || next.next === 'hangUp') return void res.status(200).type('text/xml').send(hangUpTwiml());
  const token = mintStreamToken(ctx.encryptor, callId, Date.now(), next.streamTokenSeq);
  const twiml = connectStreamTwiml(mediaStreamUrlOf(ctx.config, callId, provider), {
    [STREAM_TOKEN_PARAMETER]: token,
  });
  res.status(200).type('text/xml').send(twiml);
}
