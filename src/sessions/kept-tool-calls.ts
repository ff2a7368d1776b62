import type { Knex } from 'knex';
import { preparedQuery } from '../db/prepared';
import { type EventRow, insertEventsSql } from '../events/emit';
import type { AgentToolOutcome } from './turn-types';

/**
 * The calls a session's tool steps ran (`session_tool_calls`), kept so that no call runs twice
 * (docs/sessions.md "Tool calls"): a row before the call, its outcome after. With an event, the row
 * and the event (`tool.called`, then `tool.completed` / `tool.failed`) commit in one statement.
 */
export type KeptCallKey = [sessionId: string, turnId: string, callId: string];

export interface KeptCall {
  /** True when this statement started the call; false when it had started before. */
  fresh: boolean;
  /** The outcome of a call that finished before. */
  outcome: AgentToolOutcome | null;
}

const START_SQL = (called: string) => `with started as (
     insert into session_tool_calls (session_id, turn_id, call_id) values (?, ?, ?)
     on conflict do nothing returning true as fresh, outcome
   )${called}
   select * from started
   union all
   select false as fresh, outcome from session_tool_calls
    where session_id = ? and turn_id = ? and call_id = ? and not exists (select 1 from started)`;

/** Keeps the call as started, with its `tool.called` event if given (only if it had not started). */
export async function startKeptCall(knex: Knex, key: KeptCallKey, event?: EventRow): Promise<KeptCall> {
  const called = event ? insertEventsSql(event, [event], 'exists (select 1 from started)') : null;
  const [kept] = await preparedQuery<KeptCall>(
    knex,
    called ? 'session-tool-call-start-event' : 'session-tool-call-start',
    START_SQL(called ? `, called as (${called.sql})` : ''),
  )([...key, ...(called?.bindings ?? []), ...key]);
  return kept ?? { fresh: false, outcome: null };
}

const FINISH_SQL = `update session_tool_calls set outcome = ?::jsonb, finished_at = now()
  where session_id = ? and turn_id = ? and call_id = ? and outcome is null`;

/** Keeps the call's outcome (once), with its outcome event if given. */
export async function finishKeptCall(
  knex: Knex,
  key: KeptCallKey,
  outcome: AgentToolOutcome,
  event?: EventRow,
): Promise<void> {
  const finished = event ? insertEventsSql(event, [event], 'exists (select 1 from finished)') : null;
  await preparedQuery(
    knex,
    finished ? 'session-tool-call-finish-event' : 'session-tool-call-finish',
    finished ? `with finished as (${FINISH_SQL} returning 1) ${finished.sql}` : FINISH_SQL,
  )([JSON.stringify(outcome), ...key, ...(finished?.bindings ?? [])]);
}
