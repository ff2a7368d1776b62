import type { CoreContext } from '../common/context';
import type { Owner } from '../common/owner';
import { preparedQuery } from '../db/prepared';
import { type EventRow, eventRow, insertEventsSql } from '../events/emit';
import type { Outcome, ToolExecutionResult } from './tool-types';

/**
 * A tool call for runToolWithEvents: the call itself, or `prepare`, the reads it needs first (a
 * server row, its secrets), answering the call. `prepare` runs while `tool.called` is written.
 */
export type ToolCall = (() => Promise<Outcome>) | { prepare: () => Promise<() => Promise<Outcome>> };

/**
 * Where a call's events are written. The default inserts each on its own; a caller that keeps a
 * record of the call (a voice session keeps each call it ran, src/sessions/agent-tools.ts) writes
 * its record in the same statement as the event.
 */
export interface ToolEventWriter {
  /** Writes `tool.called`; false when the call must not run (its record says it ran before). */
  called(event: EventRow): Promise<boolean>;
  /** Writes `tool.completed` or `tool.failed` once the call has answered. */
  finished(event: EventRow, result: ToolExecutionResult): Promise<void>;
}

/** The default writer: each event is one INSERT of its own. */
export function eventsOnly(ctx: CoreContext, owner: Owner): ToolEventWriter {
  const insert = async (event: EventRow) => {
    const { sql, bindings } = insertEventsSql(owner, [event]);
    await preparedQuery(ctx.orm.em.getConnection().getKnex(), 'tool-event', sql)(bindings);
  };
  return {
    called: async (event) => {
      await insert(event);
      return true;
    },
    finished: (event) => insert(event),
  };
}

/** The call's context in its events. */
export interface ToolEventBase {
  sessionId: string;
  toolId: string;
  toolName: string;
}

/** A started call: its answer, and the write of its outcome event still under way. */
export interface StartedToolCall {
  result: ToolExecutionResult;
  /** `tool.completed` / `tool.failed` being written; never left unhandled. */
  outcomeEvent: Promise<void>;
}

/**
 * Runs a tool call between its events: `tool.called` (with the arguments), the call, then
 * `tool.completed` or `tool.failed` (with `error`), each with `duration` in ms and the session id.
 */
export async function runToolWithEvents(
  ctx: CoreContext,
  owner: Owner,
  base: ToolEventBase,
  args: Record<string, unknown>,
  call: ToolCall,
): Promise<ToolExecutionResult> {
  const started = await startToolWithEvents(owner, base, args, call, eventsOnly(ctx, owner));
  if (!started) throw new Error('The default event writer never refuses a call');
  await started.outcomeEvent;
  return started.result;
}

/**
 * runToolWithEvents, answering as soon as the call has: `outcomeEvent` is the write of
 * `tool.completed` / `tool.failed` still under way, for the caller to await with its next step
 * instead of before it. `tool.called` is written before the call starts, as always; null when the
 * writer refused the call (nothing ran).
 */
export async function startToolWithEvents(
  owner: Owner,
  base: ToolEventBase,
  args: Record<string, unknown>,
  call: ToolCall,
  writer: ToolEventWriter,
): Promise<StartedToolCall | null> {
  const event = (type: EventRow['type'], data: Record<string, unknown>) =>
    eventRow({ accountId: owner.accountId, environment: owner.environment, type, data, personaId: null });
  const calledEvent = writer.called(event('tool.called', { ...base, arguments: args }));
  const prepared = typeof call === 'function' ? Promise.resolve(call) : call.prepare();
  const [called, ready] = await Promise.allSettled([calledEvent, prepared]);
  if (called.status === 'rejected') throw called.reason;
  if (!called.value) return null;
  if (ready.status === 'rejected') throw ready.reason;
  const started = performance.now();
  const outcome = await ready.value();
  const durationMs = Math.round(performance.now() - started);
  const statusCode = outcome.statusCode ? { statusCode: outcome.statusCode } : {};
  const result: ToolExecutionResult = outcome.success
    ? { success: true, result: outcome.result, durationMs, ...statusCode }
    : {
        success: false,
        error: outcome.error,
        ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
        durationMs,
        ...statusCode,
      };
  const outcomeEvent = writer.finished(
    outcome.success
      ? event('tool.completed', { ...base, success: true, duration: durationMs })
      : event('tool.failed', {
          ...base,
          success: false,
          error: outcome.error,
          ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
          duration: durationMs,
        }),
    result,
  );
  outcomeEvent.catch(() => undefined); // handled here; whoever awaits it still sees the failure
  return { result, outcomeEvent };
}
