import type { Client as TemporalClient } from '@temporalio/client';
import type { Knex } from 'knex';
import { Client as PgClient } from 'pg';
import type { Config } from '../config/env';
import type { Logger } from '../logging/logger';
import { gaugeAtScrape } from '../telemetry/metrics';
import { OUTBOX_BATCH as BATCH, type ClaimedStart, type OutboxHandler, outboxLagSeconds } from './outbox';

/** Polling interval when LISTEN/NOTIFY is available (a safety net) and when it is not. */
const POLL_WITH_NOTIFY_MS = 2_000;
const POLL_WITHOUT_NOTIFY_MS = 250;
/**
 * The longest wait between tries while the database is down: one cheap query a try, so the outbox
 * moves again within 2 s of the database's return (the cluster's chaos run measured 12.9 s with 15 s).
 */
const MAX_BACKOFF_MS = 2_000;
/**
 * After a notification, the dispatcher waits this long before its pass, so that the events of one
 * burst (a voice turn's `tool.called` and `tool.completed`, a run's step events) are fanned out in one
 * transaction rather than one each, after the work that emitted them rather than during it.
 */
const NOTIFY_COALESCE_MS = 15;

interface EventRow {
  id: string;
}

/** What ended the dispatcher's wait: a NOTIFY of new events, or the poll timer (or stop). */
type Wake = 'notify' | 'timer';

/**
 * Turns the outbox into each area's work (webhook deliveries, workflow executions…), in two steps
 * that each survive a crash at any point:
 *  1. fan-out (database only): claim undispatched events (`FOR UPDATE SKIP LOCKED`, so several
 *     dispatchers never claim the same row), let every registered OutboxHandler write its pending
 *     rows for them (webhooks: one `pending` delivery per matching webhook) and mark the events
 *     dispatched, in one transaction. Those rows' ids derive from the event (a delivery's from event
 *     and webhook), so a re-run inserts nothing twice.
 *  2. start: each handler claims its rows whose workflow has not started (SKIP LOCKED), starts each
 *     workflow (workflow id = row id: a repeated start is harmless) and records which started
 *     (startClaimed). When Temporal is down the starts fail, the rows stay unstarted and are
 *     retried with backoff: events are delayed, never dropped. This also starts what the API
 *     committed but could not start itself (a replayed delivery, a workflow execution).
 * It wakes on `NOTIFY vp_outbox` (a trigger on the events table) and also polls as a safety net.
 * The handlers are the areas' (outbox-handlers.ts); the dispatcher knows no area.
 */
export class EventDispatcher {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private interrupt?: () => void;
  private listener?: PgClient;
  private failures = 0;
  private readonly handlers: OutboxHandler[];

  constructor(
    private readonly deps: {
      knex: Knex;
      temporal: TemporalClient;
      config: Config;
      logger: Logger;
      /** Connection string for LISTEN; omitted where only one connection is allowed (PGlite). */
      listenUrl?: string;
      /** Every area's handler, in the order they run (the registry: src/app/outbox-handlers.ts). */
      handlers: OutboxHandler[];
    },
  ) {
    this.handlers = deps.handlers;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    gaugeAtScrape('outbox_lag_seconds', 'Seconds since the oldest event not yet fanned out was written', () =>
      outboxLagSeconds(this.deps.knex),
    );
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.interrupt?.();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }

  /**
   * One pass of both steps; returns how many rows it moved. Exposed for tests and benchmarks.
   * A sweep (the default) runs every handler's start pass; otherwise only the passes of handlers
   * whose fan-out just wrote rows run (a notification: the rest are recovery scans, swept on the
   * poll interval).
   */
  async dispatchOnce(opts: { sweep?: boolean } = {}): Promise<number> {
    const { events, wrote } = await this.fanOut();
    let moved = events;
    for (const handler of this.handlers) {
      if (!handler.startPending || (opts.sweep === false && !wrote.has(handler))) continue;
      moved += await handler.startPending((pass) => this.startClaimed(pass));
    }
    return moved;
  }

  private async run(): Promise<void> {
    await this.listen();
    let sweptAt = 0;
    let woke: Wake = 'timer';
    while (this.running) {
      let moved = 0;
      // a notification means new events: fan them out and start what that wrote; the recovery scans
      // of every handler run on the poll interval (and after a failure or a full batch)
      const sweep = woke !== 'notify' || Date.now() - sweptAt >= POLL_WITH_NOTIFY_MS;
      if (sweep) sweptAt = Date.now();
      try {
        moved = await this.dispatchOnce({ sweep });
        if (this.failures > 0) this.deps.logger.info('event dispatcher recovered');
        this.failures = 0;
      } catch (error) {
        this.failures++;
        this.deps.logger.warn(
          { err: error, failures: this.failures },
          'event dispatch failed; events stay in the outbox and are retried',
        );
      }
      if (!this.running) break;
      if (moved >= BATCH) {
        woke = 'timer'; // more waiting: go again at once, every handler
        continue;
      }
      const backoff = this.failures > 0 ? Math.min(MAX_BACKOFF_MS, 250 * 2 ** this.failures) : undefined;
      woke = await this.sleep(
        backoff ?? (this.listener ? POLL_WITH_NOTIFY_MS : POLL_WITHOUT_NOTIFY_MS),
        !backoff,
      );
      if (woke === 'notify') await this.sleep(NOTIFY_COALESCE_MS, false);
      if (!this.listener && this.deps.listenUrl && this.running) await this.listen();
    }
  }

  /** Waits `ms`; a notification ends the wait early unless backing off; stop() always does. */
  private sleep(ms: number, wakeOnNotify: boolean): Promise<Wake> {
    return new Promise((resolve) => {
      const finish = (why: Wake) => {
        clearTimeout(timer);
        this.wake = undefined;
        this.interrupt = undefined;
        resolve(why);
      };
      const timer = setTimeout(() => finish('timer'), ms);
      this.wake = wakeOnNotify ? () => finish('notify') : undefined;
      this.interrupt = () => finish('timer');
    });
  }

  private async listen(): Promise<void> {
    if (!this.deps.listenUrl || this.listener) return;
    const client = new PgClient({ connectionString: this.deps.listenUrl });
    try {
      await client.connect();
      client.on('notification', () => this.wake?.());
      client.on('error', (error) => {
        this.deps.logger.warn({ err: error }, 'outbox LISTEN connection lost; polling until it is back');
        this.listener = undefined;
        client.end().catch(() => undefined);
      });
      await client.query('LISTEN vp_outbox');
      this.listener = client;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'outbox LISTEN unavailable; polling');
      await client.end().catch(() => undefined);
    }
  }

  /**
   * Step 1: claimed events → every handler's pending rows, in one transaction. The claim marks the
   * events dispatched in the same statement (the transaction makes both or neither). Events that no
   * handler wants are marked first, in one statement without a transaction. Answers how many events
   * moved and which handlers wrote rows.
   */
  private async fanOut(): Promise<{ events: number; wrote: Set<OutboxHandler> }> {
    const { marked, wanted } = await this.markUnwanted();
    if (wanted === 0) return { events: marked, wrote: new Set() };
    const claimed = await this.claimAndFanOut();
    return { ...claimed, events: claimed.events + marked };
  }

  /**
   * The events of the next batch that no handler wants (`wantsEventSql`), marked dispatched in one
   * statement; answers how many it marked and how many of the batch some handler wants.
   */
  private async markUnwanted(): Promise<{ marked: number; wanted: number }> {
    const conditions = this.handlers.filter((h) => h.onEvents).map((h) => h.wantsEventSql ?? 'true');
    const wants = conditions.length ? conditions.map((c) => `(${c})`).join(' or ') : 'false';
    const { rows } = await this.deps.knex.raw<{ rows: { marked: number; wanted: number }[] }>(
      `with batch as (
         select e.id, ${wants} as wanted from events e
          where e.dispatched_at is null order by e.created_at limit ? for update skip locked
       ), marked as (
         update events set dispatched_at = now() where id in (select id from batch where not wanted) returning id
       )
       select (select count(*) from marked)::int as marked, (select count(*) from batch where wanted)::int as wanted`,
      [BATCH],
    );
    return rows[0];
  }

  /** The claim transaction: claimed events → every handler's pending rows (see fanOut). */
  private async claimAndFanOut(): Promise<{ events: number; wrote: Set<OutboxHandler> }> {
    return this.deps.knex.transaction(async (trx) => {
      const wrote = new Set<OutboxHandler>();
      const { rows: events } = await trx.raw<{ rows: EventRow[] }>(
        `update events set dispatched_at = now() where id in (
           select id from events where dispatched_at is null order by created_at limit ? for update skip locked
         ) returning id`,
        [BATCH],
      );
      if (events.length === 0) return { events: 0, wrote };
      const ids = events.map((e) => e.id);
      for (const handler of this.handlers) {
        if (((await handler.onEvents?.(trx, ids)) ?? 0) > 0) wrote.add(handler);
      }
      return { events: events.length, wrote };
    });
  }

  /**
   * Claims up to BATCH unstarted rows of `table` (`claimSql`, which locks them), starts a workflow
   * for each within 10 s, and sets `workflow_started_at` on those that started, in one transaction.
   * Throws the first failed start after recording the others, so the loop backs off.
   */
  private async startClaimed<Row extends { id: string }>({
    table,
    claimSql,
    bindings,
    start,
  }: ClaimedStart<Row>): Promise<number> {
    let failed: unknown;
    // Nothing unstarted is the usual case: found with one statement, without a transaction's three
    // round trips (every pass asks every handler; locks taken here end with the statement).
    const { rows: unstarted } = await this.deps.knex.raw<{ rows: Row[] }>(claimSql, bindings);
    if (unstarted.length === 0) return 0;
    const moved = await this.deps.knex.transaction(async (trx) => {
      const { rows } = await trx.raw<{ rows: Row[] }>(claimSql, bindings);
      if (rows.length === 0) return 0;
      const deadline = Date.now() + 10_000;
      const results = await Promise.allSettled(
        rows.map((r) => this.deps.temporal.withDeadline(deadline, () => start(r))),
      );
      const started = rows.filter((_, i) => results[i].status === 'fulfilled').map((r) => r.id);
      const rejection = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (rejection) failed = rejection.reason;
      if (started.length > 0) {
        await trx.raw(`update ${table} set workflow_started_at = now() where id = any(?)`, [started]);
      }
      return started.length;
    });
    if (failed) throw failed;
    return moved;
  }
}
