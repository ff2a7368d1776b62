import type { Client as TemporalClient } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Config } from '../config/env';

/** Rows claimed per statement (events per fan-out, unstarted rows per start pass). */
export const OUTBOX_BATCH = 200;

/** What an area's outbox handler is built from. */
export interface OutboxDeps {
  temporal: TemporalClient;
  config: Config;
}

/** One claim-start-record pass over an area's unstarted rows (see EventDispatcher.startClaimed). */
export interface ClaimedStart<Row extends { id: string }> {
  /** The table whose `workflow_started_at` is set on the rows that started. */
  table: string;
  /** Selects at most OUTBOX_BATCH unstarted rows `for update skip locked`. */
  claimSql: string;
  bindings: unknown[];
  /** Starts a row's workflow; a repeated start must be harmless (workflow id derived from the row). */
  start: (row: Row) => Promise<unknown>;
}

export type StartClaimed = <Row extends { id: string }>(pass: ClaimedStart<Row>) => Promise<number>;

/**
 * An area's side effects of the event outbox, registered in outbox-handlers.ts. The dispatcher
 * claims the events and calls, in order:
 * - `onEvents` inside the claim transaction, with the ids of the claimed events: write this
 *   area's pending work as rows with ids derived from the event (a re-run inserts nothing twice).
 *   The events are marked dispatched in the same transaction.
 * - `startPending` after that commit when `onEvents` wrote rows, and on every sweep (the poll
 *   interval, and after a failure or a full batch): start the workflows of this area's rows
 *   that have none yet through `startClaimed` (claimed with SKIP LOCKED, started, recorded as
 *   started; a failed start leaves the row for the next pass and makes the dispatcher back off).
 * Returns how many rows moved.
 */
export interface OutboxHandler {
  /** For logs. */
  readonly name: string;
  /** Answers how many rows it wrote: their start pass runs right after (others wait for a sweep). */
  onEvents?(trx: Knex.Transaction, eventIds: string[]): Promise<number>;
  /**
   * With `onEvents`: a SQL condition on the event row `e` that holds for every event `onEvents` would
   * write rows for (it may hold for more). Events no handler's condition holds for are marked
   * dispatched in one statement, without the claim transaction (most of a voice turn's events).
   */
  readonly wantsEventSql?: string;
  startPending?(startClaimed: StartClaimed): Promise<number>;
}

/**
 * Seconds since the oldest event the dispatcher has not fanned out yet was written (0 when none):
 * the outbox's lag, read at each metrics scrape (an indexed read of the undispatched events).
 */
export async function outboxLagSeconds(knex: Knex): Promise<number> {
  const row = await knex('events')
    .whereNull('dispatched_at')
    .first(knex.raw('coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as lag'));
  return Number((row as { lag?: number } | undefined)?.lag ?? 0);
}
