import type { AppContext } from '../../common/context';
import { personaForSession } from '../../personas';
import type { PhoneNumber } from '../phone-numbers/phone-number.entity';
import { connectStreamTwiml, sayAndHangUpTwiml } from '../twilio/twiml';
import { Call } from './call.entity';
import { mediaStreamUrlOf } from './call-steps';
import { startCallWorkflow } from './call-workflows';
import { DEFAULT_MAX_DURATION_S } from './calls.schemas';
import { mintStreamToken, STREAM_TOKEN_PARAMETER } from './stream-token';

/** What a caller hears when the number cannot answer (no persona, or one a live number may not use). */
export const CANNOT_ANSWER =
  'Sorry, this number cannot take calls right now. Please try again later. Goodbye.';

/** An incoming call as the carrier's voice webhook describes it. */
export interface IncomingCall {
  carrierCallId: string;
  from: string;
  to: string;
}

/** The persona that answers the number, if it may: none, or one a live number may not use, is undefined. */
async function answeringPersona(
  ctx: AppContext,
  number: PhoneNumber,
): Promise<{ personaId: string; maxDurationS: number } | undefined> {
  if (!number.personaId) return undefined;
  try {
    const owner = { accountId: number.account, environment: number.environment };
    const { manifest } = await personaForSession(ctx.orm.em.fork(), {
      ...owner,
      personaId: number.personaId,
    });
    const maxDurationS = manifest.telephony?.maxDurationS ?? DEFAULT_MAX_DURATION_S;
    return { personaId: number.personaId, maxDurationS };
  } catch {
    return undefined;
  }
}

/**
 * The number's call with this carrier id, or a new one (`ringing`, inbound) committed and its
 * workflow started. A carrier that sends the webhook again (a retry) gets the same call: the
 * lookup and the insert run under a lock on the number and carrier id.
 */
async function callFor(
  ctx: AppContext,
  number: PhoneNumber,
  answering: { personaId: string; maxDurationS: number },
  incoming: IncomingCall,
) {
  const { personaId, maxDurationS } = answering;
  const call = await ctx.orm.em.fork().transactional(async (tem) => {
    const lock = `call:${number.id}:${incoming.carrierCallId}`;
    await tem
      .getConnection()
      .execute('select pg_advisory_xact_lock(hashtext(?))', [lock], 'all', tem.getTransactionContext());
    const seen = await tem.findOne(Call, { phoneNumberId: number.id, carrierCallId: incoming.carrierCallId });
    if (seen) return seen;
    return tem.create(Call, {
      account: number.account,
      environment: number.environment,
      phoneNumberId: number.id,
      personaId,
      direction: 'inbound',
      from: incoming.from,
      to: incoming.to,
      status: 'ringing',
      timeline: [{ status: 'ringing', at: new Date().toISOString() }],
      carrierCallId: incoming.carrierCallId,
      maxDurationS,
    });
  });
  try {
    await startCallWorkflow(ctx.temporal, ctx.config, {
      id: call.id,
      accountId: call.account,
      phoneNumberId: number.id,
      personaId: call.personaId,
      direction: 'inbound',
      status: 'ringing',
      maxDurationS: call.maxDurationS,
    });
    await ctx.orm.em.fork().nativeUpdate(Call, { id: call.id }, { workflowStartedAt: new Date() });
  } catch (error) {
    ctx.logger.warn({ err: error, callId: call.id }, 'call workflow not started yet; the dispatcher will');
  }
  return call;
}

/** An incoming call admitted: its id, and what connects its media stream (URL and call token). */
export interface AdmittedCall {
  callId: string;
  streamUrl: string;
  callToken: string;
}

/**
 * Admits a signed incoming call (docs/telephony.md "Calls"), whatever its carrier: the call row and
 * its workflow, and its stream URL and call token; undefined for a number that cannot answer (no
 * persona, or one a live number may not use), and nothing is created.
 */
export async function admitIncomingCall(
  ctx: AppContext,
  number: PhoneNumber,
  incoming: IncomingCall,
): Promise<AdmittedCall | undefined> {
  const answering = await answeringPersona(ctx, number);
  if (!answering) return undefined;
  const call = await callFor(ctx, number, answering, incoming);
  return {
    callId: call.id,
    streamUrl: mediaStreamUrlOf(ctx.config, call.id, number.provider),
    callToken: mintStreamToken(ctx.encryptor, call.id),
  };
}

/**
 * Answers a signed incoming Twilio call: TwiML that connects the call to its media stream with its
 * call token as a `<Parameter>`; or, for a number that cannot answer, a polite `<Say>` and
 * `<Hangup/>` (nothing created).
 */
export async function answerIncomingCall(ctx: AppContext, number: PhoneNumber, incoming: IncomingCall) {
  const admitted = await admitIncomingCall(ctx, number, incoming);
  if (!admitted) return sayAndHangUpTwiml(CANNOT_ANSWER);
  return connectStreamTwiml(admitted.streamUrl, { [STREAM_TOKEN_PARAMETER]: admitted.callToken });
}
