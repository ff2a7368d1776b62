import type { EntityManager } from '@mikro-orm/postgresql';
import { RECORDED_CALL_SQL, reportLinks } from '../call-reports';
import type { CoreContext } from '../common/context';
import { derivedId } from '../common/ids';
import { preparedQuery } from '../db/prepared';
import { emitEvent } from '../events/emit';
import type { SessionEndedPayload } from '../events/payloads';
import { type FinishedExecution, finishedExecutionCte } from '../voice-workflows';
import { Session, type SessionTurn, type TurnAction } from './session.entity';
import type { SessionEndReason, TurnRoute } from './statuses';
import type { TurnRecord } from './turn-types';

/** A turn as recorded, before the record gives it its index: identified by its Workflow Update. */
export type TurnEntry = { sessionId: string; updateId: string } & Omit<TurnRecord, 'index'> & {
    /** A voice command the API ran without side effects, written by the turn's statement. */
    command?: FinishedExecution;
  };

const TURN_COLUMNS =
  'session_id, index, text, reply, route, actions, error, latency_ms, interrupted, spoken_text, created_at';

/**
 * Inserts the turn once, at its session's next index, counts it on the session, lets the session's
 * next turn in (a REST turn's claim, src/sessions/turn-claims.ts, whose id is the turn's), and answers
 * the turn as stored; no row when another turn took that index at the same moment (then run it again).
 */
const INSERT_TURN_SQL = (before = '') => `with ${before}inserted as (
     insert into session_turns (update_id, ${TURN_COLUMNS})
     select ?, ?, coalesce(max(index), 0) + 1, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, now() from session_turns where session_id = ?
     on conflict do nothing returning ${TURN_COLUMNS}
   ), counted as (
     update sessions set turn_count = greatest(turn_count, (select index from inserted)), updated_at = now()
      where id = ?
   ), released as (
     delete from session_turn_claims where session_id = ? and claim_id = ?
   )
   select * from inserted
   union all
   select ${TURN_COLUMNS} from session_turns
    where session_id = ? and update_id = ? and not exists (select 1 from inserted)`;

const insertTurnValues = (input: TurnEntry) => [
  input.updateId,
  input.sessionId,
  input.text,
  input.reply.text,
  input.route,
  JSON.stringify(input.actions),
  input.error,
  Math.round(input.latencyMs),
  input.interrupted,
  input.spokenText,
  input.sessionId,
  input.sessionId,
  input.sessionId,
  input.updateId,
  input.sessionId,
  input.updateId,
];

/**
 * Records a turn once, in one statement, at the next free index of its session, and counts it on the
 * session (with the voice command it ran in the API, if any, and that command's events). A step run again finds it recorded (by its update) and answers the stored turn. Two turns
 * recorded at the same moment cannot take the same index (the primary key refuses the second, which
 * takes the next one).
 */
export async function recordTurn(ctx: CoreContext, input: TurnEntry): Promise<TurnRecord> {
  const command = input.command ? finishedExecutionCte(input.command) : null;
  const record = preparedQuery<TurnRow>(
    ctx.orm.em.getConnection().getKnex(),
    command ? 'session-turn-record-command' : 'session-turn-record',
    INSERT_TURN_SQL(command ? `${command.sql}, ` : ''),
  );
  const values = [...(command?.bindings ?? []), ...insertTurnValues(input)];
  for (let attempt = 1; ; attempt++) {
    const [row] = await record(values);
    if (row) return turnRecordOfRow(row);
    if (attempt === 5) throw new Error(`Turn ${input.updateId} of ${input.sessionId} could not be recorded`);
  }
}

/** A `session_turns` row as the turn statement returns it (TURN_COLUMNS). */
interface TurnRow {
  index: number;
  text: string;
  reply: string;
  route: TurnRoute;
  actions: TurnAction[];
  error: string | null;
  latency_ms: number;
  interrupted: boolean;
  spoken_text: string | null;
}

/** The turn of a row the turn statement returned: read as is, without an entity manager (hot path). */
const turnRecordOfRow = ({ latency_ms, spoken_text, ...row }: TurnRow): TurnRecord =>
  turnRecord({ ...row, latencyMs: latency_ms, spokenText: spoken_text });

export function turnRecord(
  t: Pick<
    SessionTurn,
    'index' | 'text' | 'reply' | 'route' | 'actions' | 'error' | 'latencyMs' | 'interrupted' | 'spokenText'
  >,
): TurnRecord {
  return {
    index: t.index,
    text: t.text,
    reply: { text: t.reply },
    route: t.route,
    actions: t.actions,
    error: t.error ?? null,
    latencyMs: t.latencyMs,
    interrupted: t.interrupted ?? false,
    spokenText: t.spokenText ?? t.reply,
  };
}

/** The session's recorded phone call (its recording's link), read in the ending transaction. */
async function recordedCall(tem: EntityManager, session: Session): Promise<string | null> {
  if (!session.recording) return null;
  const rows = await tem
    .getConnection()
    .execute<{ id: string }[]>(RECORDED_CALL_SQL, [session.id], 'all', tem.getTransactionContext());
  return rows[0]?.id ?? null;
}

/**
 * Ends a session once: status, end time and reason, and `session.ended` (duration in ms, turn
 * count, the signed links to its transcript and its call's recording) with an id derived from the
 * session, in one transaction. Answers the session's end. A session whose row is gone (deleted
 * while its workflow ran) has nothing to end: its workflow ends (no event), instead of retrying
 * this for ever.
 */
export async function endSession(
  ctx: CoreContext,
  input: { sessionId: string; reason: SessionEndReason },
): Promise<{ endedAt: string; turnCount: number; durationMs: number }> {
  const em = ctx.orm.em.fork();
  return em.transactional(async (tem) => {
    const session = await tem.findOne(
      Session,
      { id: input.sessionId },
      { lockMode: 4 /* PESSIMISTIC_WRITE */ },
    );
    if (!session) {
      ctx.logger.warn({ sessionId: input.sessionId }, 'session row gone; its workflow ends');
      return { endedAt: new Date().toISOString(), turnCount: 0, durationMs: 0 };
    }
    if (session.status === 'active') {
      const endedAt = new Date();
      tem.assign(session, { status: 'ended', endedAt, endReason: input.reason });
      const data: SessionEndedPayload = {
        sessionId: session.id,
        userId: session.userId,
        personaId: session.personaId,
        duration: endedAt.getTime() - session.startedAt.getTime(),
        turnCount: session.turnCount,
        reason: input.reason,
        ...reportLinks(
          ctx,
          { accountId: session.account, sessionId: session.id, callId: await recordedCall(tem, session) },
          endedAt.getTime(),
        ),
      };
      emitEvent(tem, {
        id: derivedId('evt', session.id, 'ended'),
        accountId: session.account,
        environment: session.environment,
        type: 'session.ended',
        personaId: session.personaId,
        data,
      });
    }
    const endedAt = session.endedAt ?? new Date();
    return {
      endedAt: endedAt.toISOString(),
      turnCount: session.turnCount,
      durationMs: endedAt.getTime() - session.startedAt.getTime(),
    };
  });
}
