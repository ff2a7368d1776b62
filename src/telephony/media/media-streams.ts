import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { WebSocketServer } from 'ws';
import {
  awaitAnsweredByUpdate,
  type CallTransfer,
  hangupUpdate,
  streamConnectedUpdate,
  type TransferOutcome,
  transferUpdate,
} from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { LiveCalls, SHUTDOWN_WAIT_MS } from '../../common/live-calls';
import type { Plan } from '../../config/env';
import { ApiError, forbidden, notFound } from '../../http/errors';
import { refuseUpgrade } from '../../http/upgrade-refusal';
import { sessionManifest } from '../../personas';
import { Session, sessionSpeechToText, sessionVoiceId } from '../../sessions';
import { loadCall } from '../calls/call-steps';
import { takeStreamToken } from '../calls/stream-token';
import type { CarrierClient } from '../carriers/carrier';
import { carrierFor } from '../carriers/carrier-for';
import { openCredentials } from '../phone-numbers/carrier-credentials';
import { PhoneNumber } from '../phone-numbers/phone-number.entity';
import { publicBaseUrl } from '../phone-numbers/phone-numbers.service';
import { answeringMachineSetup } from './answering-machine';
import { CarrierMediaCall } from './carrier-media-call';
import type { PhoneCallSetup, StreamStart } from './media-call-setup';

/** A carrier's media stream path: the carrier, and the call it carries (no query string). */
const MEDIA_PATH = /^\/api\/v2\/telephony\/([a-z]{2,20})\/media\/(call_[A-Za-z0-9]{1,56})$/;
/** The carriers' media messages are small JSON (a 20 ms frame is 160 bytes, base64). */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** Whether an upgrade request is a carrier's media stream (else it is a live stream's). */
export const isPhoneMediaUpgrade = (req: http.IncomingMessage) =>
  MEDIA_PATH.test(new URL(req.url ?? '/', 'http://localhost').pathname);

/**
 * The upgrade names a call of a number on the path's carrier, and is that carrier's: Twilio signs
 * it with the number's auth token over the stream's URL (`X-Twilio-Signature` over `ws(s)://` +
 * PUBLIC_URL's host + the path, as its webhooks are signed); Telnyx does not sign it. Either way the
 * call token in the stream's `start` is checked, once, before anything is heard or said. Answers
 * the call's carrier, whose protocol the stream speaks.
 */
async function verifyUpgrade(ctx: AppContext, req: http.IncomingMessage, provider: string, callId: string) {
  const call = await loadCall(ctx, callId);
  if (!call) throw notFound('Call');
  const number = await ctx.orm.em.fork().findOne(PhoneNumber, { id: call.phone_number_id });
  if (!number || number.provider !== provider) throw notFound('Call');
  const carrier = carrierFor(ctx.config, openCredentials(ctx.encryptor, number));
  // the carrier requested the stream URL as the platform gave it: ws:// or wss://
  const url = publicBaseUrl(ctx.config).replace(/^http/i, 'ws') + (req.url ?? '');
  if (!carrier?.verifyMediaUpgrade({ url, headers: req.headers }))
    throw forbidden('Invalid or missing carrier signature');
  return carrier;
}

/**
 * The stream has started: its call token is taken (once: a replayed one, or another call's, is
 * refused), the call's workflow creates (or gives back) its session, and the session's persona says
 * how the agent greets and speaks.
 */
async function connectCall(
  ctx: AppContext,
  callId: string,
  start: StreamStart,
  provider: string,
): Promise<PhoneCallSetup> {
  const knex = ctx.orm.em.getConnection().getKnex();
  if (!(await takeStreamToken({ knex, encryptor: ctx.encryptor }, callId, start.callToken))) {
    throw forbidden('The call token is not this call’s, or was used');
  }
  const handle = ctx.temporal.workflow.getHandle(callId);
  const { sessionId, returnedFrom } = await handle.executeUpdate(streamConnectedUpdate);
  const em = ctx.orm.em.fork();
  const session = await em.findOneOrFail(Session, { id: sessionId });
  const manifest = await sessionManifest(em, session);
  const [account, call] = await Promise.all([
    knex('accounts').select('plan').where({ id: session.account }).first(),
    knex('calls').select('max_duration_s', 'direction', 'variables').where({ id: callId }).first(),
  ]);
  return {
    callId,
    sessionId,
    owner: { accountId: session.account, environment: session.environment },
    plan: (account?.plan ?? 'free') as Plan,
    greeting: session.greeting,
    voiceId: sessionVoiceId(manifest),
    speechToText: (await sessionSpeechToText(ctx, session.account, manifest)) ?? null,
    backchannels: manifest.behaviors?.backchannels ?? [],
    keypad: manifest.telephony?.keypad,
    closingLine: manifest.telephony?.closingLine,
    transferDestinations: manifest.telephony?.transferDestinations ?? [],
    recording: session.recording,
    maxDurationS: call?.max_duration_s,
    warmTransfers: provider === 'twilio',
    ...(returnedFrom ? { returnedFrom } : {}),
    // an outbound call may reach an answering machine: the message left then (docs/telephony.md "Voicemail")
    ...(call?.direction === 'outbound' && !returnedFrom
      ? {
          answeringMachine: {
            ...answeringMachineSetup(manifest.telephony?.voicemailMessage, call.variables),
            // Twilio detects machines itself (asynchronous AMD, asked when the call was placed)
            carrierDetects: provider === 'twilio',
          },
        }
      : {}),
  };
}

/**
 * How long an outbound call's stream waits for the carrier's answering-machine verdict: Twilio posts
 * it once a machine's greeting ends (its `MachineDetectionTimeout` is 30 s by default).
 */
const ANSWERED_BY_WAIT_MS = 35_000;

/** A cold transfer through the call's workflow, asked at most once per tool call (the update's id). */
async function transferThroughWorkflow(
  ctx: AppContext,
  callId: string,
  transfer: CallTransfer,
): Promise<TransferOutcome> {
  try {
    return await ctx.temporal.workflow.getHandle(callId).executeUpdate(transferUpdate, {
      args: [transfer],
      updateId: `${callId}:transfer:${transfer.requestId}`,
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError)
      return { ok: false, error: 'The call is not in progress' };
    throw error;
  }
}

/**
 * The carriers' media streams of this API process (docs/telephony.md "The media stream"), on the
 * HTTP server's own port, at `/api/v2/telephony/<carrier>/media/<call id>`: each upgrade is checked
 * against its call and carrier before the WebSocket opens; then a CarrierMediaCall carries the call
 * in its carrier's protocol.
 */
export function phoneMediaStreams(ctx: AppContext) {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
  });
  const calls = new LiveCalls();
  return {
    async handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      socket.on('error', () => socket.destroy());
      const match = MEDIA_PATH.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
      if (!match) return refuseUpgrade(socket, notFound('Route'));
      const [, provider, callId] = match;
      let carrier: CarrierClient;
      try {
        carrier = await verifyUpgrade(ctx, req, provider, callId);
      } catch (error) {
        if (error instanceof ApiError) return refuseUpgrade(socket, error);
        ctx.logger.error({ err: error, callId }, 'a phone media stream upgrade failed');
        return refuseUpgrade(socket, new ApiError(500, 'INTERNAL', 'Internal error'));
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const call = new CarrierMediaCall(ctx, ws, carrier.media, {
          connect: (start) => connectCall(ctx, callId, start, provider),
          ended: (id) => ctx.logger.info({ callId: id }, 'a phone media stream ended'),
          hangUp: async (id, reason) => {
            await ctx.temporal.workflow.getHandle(id).executeUpdate(hangupUpdate, { args: [{ reason }] });
          },
          transfer: (id, transfer) => transferThroughWorkflow(ctx, id, transfer),
          answeredBy: (id) =>
            ctx.temporal.workflow
              .getHandle(id)
              .executeUpdate(awaitAnsweredByUpdate, { args: [{ waitMs: ANSWERED_BY_WAIT_MS }] }),
        });
        calls.add(call);
      });
    },
    /** Closes every media stream, and resolves once each call has ended (its turn under way recorded as interrupted). */
    async close(): Promise<void> {
      wss.close();
      if (!(await calls.shutdown())) {
        ctx.logger.warn(
          { waitMs: SHUTDOWN_WAIT_MS },
          'some phone media streams had not ended when the shutdown stopped waiting',
        );
      }
    },
  };
}
