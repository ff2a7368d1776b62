import type { Knex } from 'knex';
import type { CoreContext } from '../../common/context';
import { derivedId } from '../../common/ids';
import type { Environment } from '../../common/owner';
import { eventRow, insertEventsSql } from '../../events/emit';
import { CarrierNotAskedError, CarrierRefusedError, CarrierUnknownOutcomeError } from '../carriers/carrier';
import { carrierFor } from '../carriers/carrier-for';
import { openCredentials } from '../phone-numbers/carrier-credentials';
import { type Carrier, PhoneNumber } from '../phone-numbers/phone-number.entity';
import {
  answeredByCallbackUrlOf,
  publicBaseUrl,
  statusCallbackUrlOf,
  warmTransferUrlOf,
} from '../phone-numbers/phone-numbers.service';
import type { CallStatus } from './call-statuses';
import { mintStreamToken } from './stream-token';

/**
 * How placing a call went: placed (the carrier's id), refused (nothing placed, why), unknown, or
 * not asked (the request never left: nothing placed, the row unmarked, another attempt may place it).
 */
export type PlaceOutcome =
  | { outcome: 'placed'; carrierCallId: string }
  | { outcome: 'refused'; reason: string }
  | { outcome: 'unknown'; reason: string }
  | { outcome: 'not_asked'; reason: string };

interface CallRow {
  id: string;
  account_id: string;
  environment: Environment;
  phone_number_id: string;
  persona_id: string;
  session_id: string | null;
  direction: string;
  from: string;
  to: string;
  status: CallStatus;
  carrier_call_id: string | null;
  ended_reason: string | null;
  duration_s: number | null;
}

const knexOf = (ctx: Pick<CoreContext, 'orm'>): Knex => ctx.orm.em.getConnection().getKnex();

export async function loadCall(ctx: Pick<CoreContext, 'orm'>, callId: string): Promise<CallRow | undefined> {
  const { rows } = await knexOf(ctx).raw<{ rows: CallRow[] }>('select * from calls where id = ?', [callId]);
  return rows[0];
}

/** The media stream URL of a call on `provider`'s line: ws:// under an http PUBLIC_URL, wss:// under https. */
export const mediaStreamUrlOf = (config: CoreContext['config'], callId: string, provider: Carrier) =>
  `${publicBaseUrl(config).replace(/^http/i, 'ws')}/api/v2/telephony/${provider}/media/${callId}`;

/** The number's carrier client, with its decrypted credentials. */
async function carrierOfNumber(ctx: CoreContext, phoneNumberId: string) {
  const number = await ctx.orm.em.fork().findOne(PhoneNumber, { id: phoneNumberId });
  const carrier = number && carrierFor(ctx.config, openCredentials(ctx.encryptor, number));
  return number && carrier ? { number, carrier } : undefined;
}

/**
 * Places an outbound call at most once (docs/telephony.md "Calls"): marks the row as being placed
 * before the carrier is asked, in one statement that only one attempt wins. An attempt that finds
 * it marked (a retry after the first one's answer was lost) asks nothing: it answers the carrier's
 * id if the first one recorded it, else `unknown`, and the workflow waits for the carrier's status
 * callback. A 4xx is `refused`; a timeout, a 5xx or a broken connection `unknown`; a request that
 * never left whole (no connection) lifts the mark and answers `not_asked`: the workflow tries again
 * later unless the call was hung up meanwhile (workflows/call-steps.ts).
 */
export async function placeCallOnce(ctx: CoreContext, input: { callId: string }): Promise<PlaceOutcome> {
  const knex = knexOf(ctx);
  // what may fail for a passing reason (the database, the number's credentials) is read before the
  // row is marked: an attempt that fails then is retried and places; after the mark, only the
  // carrier's request can leave the outcome unknown
  const queued = await loadCall(ctx, input.callId);
  const found = queued ? await carrierOfNumber(ctx, queued.phone_number_id) : null;
  const { rows } = await knex.raw<{ rows: CallRow[] }>(
    `update calls set placing_started_at = now(), updated_at = now()
       where id = ? and placing_started_at is null and status = 'queued' returning *`,
    [input.callId],
  );
  const call = rows[0];
  if (!call) {
    const seen = await loadCall(ctx, input.callId);
    if (seen?.carrier_call_id) return { outcome: 'placed', carrierCallId: seen.carrier_call_id };
    return {
      outcome: 'unknown',
      reason: 'an earlier attempt started placing the call; its outcome is unknown',
    };
  }
  if (!found)
    return { outcome: 'refused', reason: 'the phone number was deleted, or its carrier cannot place calls' };
  try {
    const { carrierCallId } = await found.carrier.placeCall({
      callId: call.id,
      from: call.from,
      to: call.to,
      streamUrl: mediaStreamUrlOf(ctx.config, call.id, found.number.provider),
      callToken: mintStreamToken(ctx.encryptor, call.id),
      statusCallbackUrl: `${statusCallbackUrlOf(ctx.config, found.number)}?callId=${call.id}`,
      answeredByCallbackUrl: `${answeredByCallbackUrlOf(ctx.config, found.number)}?callId=${call.id}`,
    });
    await knex.raw('update calls set carrier_call_id = ? where id = ? and carrier_call_id is null', [
      carrierCallId,
      call.id,
    ]);
    return { outcome: 'placed', carrierCallId };
  } catch (error) {
    if (error instanceof CarrierRefusedError) return { outcome: 'refused', reason: error.message };
    if (error instanceof CarrierNotAskedError) {
      // nothing left for the carrier: the mark is lifted, so the workflow's next attempt places it
      await knex.raw('update calls set placing_started_at = null where id = ? and carrier_call_id is null', [
        call.id,
      ]);
      return { outcome: 'not_asked', reason: error.message };
    }
    if (error instanceof CarrierUnknownOutcomeError) return { outcome: 'unknown', reason: error.message };
    throw error;
  }
}

/**
 * Asks the carrier to put the caller through to `destination`, once: the workflow runs this with no
 * retry, since a transfer asked twice dials twice. Warm (`warm`): with the whisper and dial-ended
 * URLs of the transfer. A 4xx or an unreachable carrier is told to the agent as why the transfer did
 * not happen (in doubt for the latter).
 */
export async function transferAtCarrier(
  ctx: CoreContext,
  input: { callId: string; destination: string; warm?: { requestId: string } },
): Promise<{ ok: true } | { ok: false; error: string }> {
  const call = await loadCall(ctx, input.callId);
  if (!call?.carrier_call_id) return { ok: false, error: 'The call is not connected at the carrier' };
  const found = await carrierOfNumber(ctx, call.phone_number_id);
  if (!found) return { ok: false, error: 'The phone number was deleted' };
  // the callee sees the platform's number: the one the caller dialled, or the one that called out
  const callerId = call.direction === 'inbound' ? call.to : call.from;
  try {
    const ids = { callId: call.id, requestId: input.warm?.requestId ?? '' };
    const warm = input.warm && {
      whisperUrl: warmTransferUrlOf(ctx.config, found.number, 'whisper', ids),
      dialEndedUrl: warmTransferUrlOf(ctx.config, found.number, 'dial-ended', ids),
    };
    await found.carrier.transfer(call.carrier_call_id, { destination: input.destination, callerId, warm });
    return { ok: true };
  } catch (error) {
    if (error instanceof CarrierRefusedError)
      return { ok: false, error: `The carrier refused: ${error.message}` };
    if (error instanceof CarrierUnknownOutcomeError)
      return {
        ok: false,
        error: `The carrier could not be reached (${error.message}); the transfer may not have happened`,
      };
    throw error;
  }
}

/** Emits `call.transferred` once for the transfer (its id derived from the call and the request). */
export async function recordCallTransfer(
  ctx: CoreContext,
  input: { callId: string; destination: string; requestId: string },
): Promise<void> {
  await knexOf(ctx).transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: CallRow[] }>('select * from calls where id = ?', [input.callId]);
    if (!rows[0]) return;
    await insertCallEvent(trx, rows[0], 'call.transferred', {
      idPart: input.requestId,
      data: { destination: input.destination },
    });
  });
}

/** Asks the carrier to end the call (idempotent: the carrier ends a call once). */
export async function hangUpAtCarrier(ctx: CoreContext, input: { callId: string }): Promise<void> {
  const call = await loadCall(ctx, input.callId);
  if (!call?.carrier_call_id) return;
  const found = await carrierOfNumber(ctx, call.phone_number_id);
  try {
    await found?.carrier.hangUp(call.carrier_call_id);
  } catch (error) {
    // the call already ended at the carrier, or it cannot be reached: its status callback ends it
    if (!(error instanceof CarrierRefusedError)) throw error;
  }
}

/** The data of `call.started` and `call.ended` (docs/api-contract.md "Event types"). */
export function callEventData(call: CallRow) {
  return {
    callId: call.id,
    sessionId: call.session_id,
    direction: call.direction,
    from: call.from,
    to: call.to,
    status: call.status,
    endedReason: call.ended_reason,
    durationS: call.duration_s,
  };
}

/** Inserts a call's event (id derived from the call and type: a retry inserts nothing twice) in `trx`. */
export async function insertCallEvent(
  trx: Knex.Transaction,
  call: CallRow,
  type: 'call.started' | 'call.ended' | 'call.transferred',
  /** The event's own part of its id and data (a transfer's request and destination). */
  extra?: { idPart: string; data: Record<string, unknown> },
) {
  const owner = { accountId: call.account_id, environment: call.environment };
  const row = eventRow({
    ...owner,
    id: extra ? derivedId('evt', call.id, type, extra.idPart) : derivedId('evt', call.id, type),
    type,
    personaId: call.persona_id,
    data: { ...callEventData(call), ...extra?.data },
  });
  const { sql, bindings } = insertEventsSql(owner, [row]);
  await trx.raw(sql, bindings);
}
