import type { Client as TemporalClient } from '@temporalio/client';
import type { Knex } from 'knex';
import { Client as PgClient } from 'pg';
import { derivedId } from '../common/ids';
import type { Config } from '../config/env';
import type { Logger } from '../logging/logger';
import { startDeliveryWorkflow } from '../webhooks/delivery-workflows';
import { startExecutionWorkflow } from '../workflows/execution-start';
import type { RunVoiceWorkflowInput } from '../workflows/execution-types';

const BATCH = 200;
/** Polling interval when LISTEN/NOTIFY is available (a safety net) and when it is not. */
const POLL_WITH_NOTIFY_MS = 2_000;
const POLL_WITHOUT_NOTIFY_MS = 250;
const MAX_BACKOFF_MS = 15_000;
/** An execution the API has not started after this long is started here (the API crashed or Temporal was down). */
const EXECUTION_START_GRACE_SECONDS = 10;

interface EventRow {
  id: string;
}

interface MatchRow {
  event_id: string;
  webhook_id: string;
  account_id: string;
  environment: string;
  type: string;
}

interface UnstartedRow {
  id: string;
  account_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  test: boolean;
}

interface ExecutionRow {
  id: string;
  workflow_id: string;
  version: number;
  account_id: string;
  environment: 'live' | 'test';
  session_id: string | null;
  started_at: string | Date;
  definition: RunVoiceWorkflowInput['graph'];
  input: unknown;
}

/**
 * Turns the outbox into delivery workflows, in two steps that each survive a crash at any point:
 *  1. fan-out (database only): claim undispatched events (`FOR UPDATE SKIP LOCKED`, so several
 *     dispatchers never claim the same row), insert one `pending` delivery per matching webhook
 *     (enabled, type subscribed, persona matching when set) and mark the events dispatched, in one
 *     transaction. Delivery ids derive from event and webhook, so a re-run inserts nothing twice.
 *  2. start: claim deliveries whose workflow has not started, start each workflow (workflow id =
 *     delivery id: a repeated start is harmless) and record which started. When Temporal is down
 *     the starts fail, the rows stay unstarted and are retried with backoff: events are delayed,
 *     never dropped.
 * It also starts workflow executions whose row was committed but whose Temporal workflow was never
 * started (the API crashed, or Temporal was down when it tried).
 * It wakes on `NOTIFY vp_outbox` (a trigger on the events table) and also polls as a safety net.
 */
export class EventDispatcher {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private interrupt?: () => void;
  private listener?: PgClient;
  private failures = 0;

  constructor(
    private readonly deps: {
      knex: Knex;
      temporal: TemporalClient;
      config: Config;
      logger: Logger;
      /** Connection string for LISTEN; omitted where only one connection is allowed (PGlite). */
      listenUrl?: string;
    },
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.interrupt?.();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }

  /** One pass of both steps; returns how many rows it moved. Exposed for tests and benchmarks. */
  async dispatchOnce(): Promise<number> {
    const fanned = await this.fanOut();
    const started = await this.startPending();
    const executions = await this.startUnstartedExecutions();
    return fanned + started + executions;
  }

  private async run(): Promise<void> {
    await this.listen();
    while (this.running) {
      let moved = 0;
      try {
        moved = await this.dispatchOnce();
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
      if (moved >= BATCH) continue; // more waiting: go again at once
      const backoff = this.failures > 0 ? Math.min(MAX_BACKOFF_MS, 250 * 2 ** this.failures) : undefined;
      await this.sleep(backoff ?? (this.listener ? POLL_WITH_NOTIFY_MS : POLL_WITHOUT_NOTIFY_MS), !backoff);
      if (!this.listener && this.deps.listenUrl && this.running) await this.listen();
    }
  }

  /** Waits `ms`; a notification ends the wait early unless backing off; stop() always does. */
  private sleep(ms: number, wakeOnNotify: boolean): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.interrupt = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.wake = wakeOnNotify ? finish : undefined;
      this.interrupt = finish;
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

  /** Step 1: events → pending deliveries, in one transaction. */
  private async fanOut(): Promise<number> {
    return this.deps.knex.transaction(async (trx) => {
      const { rows: events } = await trx.raw<{ rows: EventRow[] }>(
        `select id from events where dispatched_at is null order by created_at limit ? for update skip locked`,
        [BATCH],
      );
      if (events.length === 0) return 0;
      const ids = events.map((e) => e.id);
      const { rows: matches } = await trx.raw<{ rows: MatchRow[] }>(
        `select e.id as event_id, w.id as webhook_id, e.account_id, e.environment, e.type
         from events e
         join webhooks w on w.account_id = e.account_id and w.environment = e.environment
           and w.enabled and e.type = any(w.events)
           and (w.persona_id is null or w.persona_id = e.persona_id)
         where e.id = any(?)`,
        [ids],
      );
      if (matches.length > 0) {
        await trx.raw(
          `insert into deliveries (id, account_id, environment, webhook_id, event_id, event_type, status, attempts, test, created_at)
           select * , 'pending', 0, false, now() from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
           on conflict (id) do nothing`,
          [
            matches.map((m) => derivedId('del', m.event_id, m.webhook_id)),
            matches.map((m) => m.account_id),
            matches.map((m) => m.environment),
            matches.map((m) => m.webhook_id),
            matches.map((m) => m.event_id),
            matches.map((m) => m.type),
          ],
        );
      }
      await trx.raw(`update events set dispatched_at = now() where id = any(?)`, [ids]);
      return events.length;
    });
  }

  /**
   * Claims up to BATCH unstarted rows of `table` (`claimSql`, which locks them), starts a workflow
   * for each within 10 s, and sets `workflow_started_at` on those that started, in one transaction.
   * Throws the first failed start after recording the others, so the loop backs off.
   */
  private async startClaimed<Row extends { id: string }>(
    table: 'deliveries' | 'workflow_executions',
    claimSql: string,
    bindings: unknown[],
    start: (row: Row) => Promise<unknown>,
  ): Promise<number> {
    let failed: unknown;
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

  /** Step 2: pending deliveries without a workflow → started workflows. */
  private startPending(): Promise<number> {
    return this.startClaimed<UnstartedRow>(
      'deliveries',
      `select id, account_id, webhook_id, event_id, event_type, test from deliveries
       where workflow_started_at is null and status = 'pending'
       order by created_at limit ? for update skip locked`,
      [BATCH],
      (r) =>
        startDeliveryWorkflow(this.deps.temporal, this.deps.config, {
          id: r.id,
          accountId: r.account_id,
          webhookId: r.webhook_id,
          eventId: r.event_id,
          eventType: r.event_type,
          singleAttempt: r.test,
        }),
    );
  }

  /** Executions committed but not started after a grace period → started workflows (id = exec id). */
  private startUnstartedExecutions(): Promise<number> {
    return this.startClaimed<ExecutionRow>(
      'workflow_executions',
      `select id, workflow_id, version, account_id, environment, session_id, started_at, definition, input
       from workflow_executions
       where workflow_started_at is null and status = 'running'
         and started_at < now() - make_interval(secs => ?)
       order by started_at limit ? for update skip locked`,
      [EXECUTION_START_GRACE_SECONDS, BATCH],
      (r) =>
        startExecutionWorkflow(this.deps.temporal, this.deps.config, {
          executionId: r.id,
          workflowId: r.workflow_id,
          version: r.version,
          accountId: r.account_id,
          environment: r.environment,
          sessionId: r.session_id,
          startedAt: new Date(r.started_at).toISOString(),
          graph: r.definition,
          input: r.input,
        }),
    );
  }
}
