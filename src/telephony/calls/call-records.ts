import type { Knex } from 'knex';
import type { CoreContext } from '../../common/context';
import type { CallStatus } from './call-statuses';
import { insertCallEvent, loadCall } from './call-steps';
import type { CallSessionDriver } from './call-types';

type Deps = CoreContext & { callSessions?: CallSessionDriver };

const knexOf = (ctx: Pick<CoreContext, 'orm'>): Knex => ctx.orm.em.getConnection().getKnex();

/** A status the workflow accepted, to record on the row. */
export interface StatusToRecord {
  callId: string;
  status: CallStatus;
  at: string;
  carrierCallId?: string;
}

const APPEND_TIMELINE = `timeline = timeline || jsonb_build_array(jsonb_build_object('status', :status::text, 'at', :at::text))`;

/**
 * Records a status the workflow accepted (not a terminal one: finishCall records those): on the
 * timeline, as the call's status, and `call.started` with the answer, in one transaction. A repeat
 * (a retried activity) finds the status on the timeline and changes nothing.
 */
export async function recordCallStatus(ctx: CoreContext, input: StatusToRecord): Promise<void> {
  await knexOf(ctx).transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: Parameters<typeof insertCallEvent>[1][] }>(
      `update calls set status = :status, ${APPEND_TIMELINE},
         carrier_call_id = coalesce(carrier_call_id, :carrier),
         answered_at = case when :status = 'in-progress' then coalesce(answered_at, :at::timestamptz) else answered_at end,
         updated_at = now()
       where id = :id and ended_at is null
         and not timeline @> jsonb_build_array(jsonb_build_object('status', :status::text))
       returning *`,
      { id: input.callId, status: input.status, at: input.at, carrier: input.carrierCallId ?? null },
    );
    if (rows[0] && input.status === 'in-progress') await insertCallEvent(trx, rows[0], 'call.started');
  });
}

/** How a call ended, to record. */
export interface CallEnd {
  callId: string;
  status: CallStatus;
  endedReason: string;
  at: string;
  /** The carrier's duration; else the time from the answer to `at` (0 if never answered). */
  durationS?: number;
  carrierCallId?: string;
}

/**
 * Ends a call: its session (if it has one) through the sessions area, then the row (terminal
 * status on the timeline, reason, duration, end time) and `call.ended`, in one transaction, once.
 */
export async function finishCall(deps: Deps, input: CallEnd): Promise<void> {
  const call = await loadCall(deps, input.callId);
  if (!call || call.ended_reason !== null) return;
  if (call.session_id && deps.callSessions) {
    await deps.callSessions.end({
      accountId: call.account_id,
      environment: call.environment,
      sessionId: call.session_id,
    });
  }
  await knexOf(deps).transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: Parameters<typeof insertCallEvent>[1][] }>(
      `update calls set status = :status, ${APPEND_TIMELINE}, ended_reason = :reason, ended_at = :at::timestamptz,
         carrier_call_id = coalesce(carrier_call_id, :carrier),
         duration_s = coalesce(:duration::int,
           greatest(0, round(extract(epoch from (:at::timestamptz - answered_at))))::int, 0),
         updated_at = now()
       where id = :id and ended_at is null
       returning *`,
      {
        id: input.callId,
        status: input.status,
        at: input.at,
        reason: input.endedReason,
        duration: input.durationS ?? null,
        carrier: input.carrierCallId ?? null,
      },
    );
    if (rows[0]) await insertCallEvent(trx, rows[0], 'call.ended');
  });
}

/**
 * The call's session, created once (the media stream started): the sessions area's own start, with
 * the other party's number as `userId` and `channel: phone`, then kept on the call. A second call
 * answers the same id; of two racing, the one that lost ends its session again, as does one that
 * finds the call ended meanwhile.
 */
export async function connectCallSession(
  deps: Deps,
  input: { callId: string },
): Promise<{ sessionId: string }> {
  const call = await loadCall(deps, input.callId);
  if (!call) throw new Error(`Call ${input.callId} not found`);
  if (call.session_id) return { sessionId: call.session_id };
  if (!deps.callSessions) throw new Error('This worker cannot start sessions (no callSessions driver)');
  const owner = { accountId: call.account_id, environment: call.environment };
  const other = call.direction === 'inbound' ? call.from : call.to;
  const { rows: vars } = await knexOf(deps).raw<{ rows: { variables: Record<string, string> }[] }>(
    'select variables from calls where id = ?',
    [call.id],
  );
  const sessionId = await deps.callSessions.start({
    ...owner,
    personaId: call.persona_id,
    userId: other,
    metadata: { callId: call.id, variables: vars[0]?.variables ?? {} },
  });
  const knex = knexOf(deps);
  await knex.raw(`update sessions set channel = 'phone' where id = ?`, [sessionId]);
  // kept only on a call still going: a call that ended meanwhile leaves this session ended
  const { rows } = await knex.raw<{ rows: { id: string }[] }>(
    `update calls set session_id = ?, updated_at = now()
       where id = ? and session_id is null and ended_at is null returning id`,
    [sessionId, call.id],
  );
  if (rows.length === 1) return { sessionId };
  await deps.callSessions.end({ ...owner, sessionId });
  const kept = await loadCall(deps, call.id);
  return { sessionId: kept?.session_id ?? sessionId };
}
