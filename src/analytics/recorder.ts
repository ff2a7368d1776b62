import type { Knex } from 'knex';
import type { ApiCall, ApiCallRecorder } from '../common/api-calls';
import type { Logger } from '../logging/logger';
import { errorCodeForStatus } from './codes';
import { compareBuckets, dayRows, type MinuteBucket } from './minute-buckets';
import { MINUTE_MS } from './windows';

/** Rows per upsert statement (each row is 11 array elements). */
const BATCH_ROWS = 5_000;
/**
 * Keys kept while the database refuses flushes (an outage): beyond this, the oldest failed batch is
 * dropped (and logged) instead of growing without bound.
 */
export const MAX_PENDING_KEYS = 200_000;

const MINUTES_UPSERT = `insert into "api_call_minutes" ("account_id", "environment", "minute", "method", "route", "status", "error_code", "calls", "latency_ms_sum", "last_at", "last_message")
  select * from unnest(?::text[], ?::text[], ?::timestamptz[], ?::text[], ?::text[], ?::smallint[], ?::text[], ?::bigint[], ?::float8[], ?::timestamptz[], ?::text[])
  on conflict ("account_id", "environment", "minute", "method", "route", "status", "error_code") do update set
    "calls" = "api_call_minutes"."calls" + excluded."calls",
    "latency_ms_sum" = "api_call_minutes"."latency_ms_sum" + excluded."latency_ms_sum",
    "last_message" = case when excluded."last_at" >= "api_call_minutes"."last_at" then excluded."last_message" else "api_call_minutes"."last_message" end,
    "last_at" = greatest("api_call_minutes"."last_at", excluded."last_at")`;

const DAYS_UPSERT = `insert into "api_call_days" ("account_id", "environment", "day", "error_code", "calls", "latency_ms_sum", "last_at", "last_message")
  select * from unnest(?::text[], ?::text[], ?::date[], ?::text[], ?::bigint[], ?::float8[], ?::timestamptz[], ?::text[])
  on conflict ("account_id", "environment", "day", "error_code") do update set
    "calls" = "api_call_days"."calls" + excluded."calls",
    "latency_ms_sum" = "api_call_days"."latency_ms_sum" + excluded."latency_ms_sum",
    "last_message" = case when excluded."last_at" >= "api_call_days"."last_at" then excluded."last_message" else "api_call_days"."last_message" end,
    "last_at" = greatest("api_call_days"."last_at", excluded."last_at")`;

/** How long close() waits for the last flush. */
const CLOSE_FLUSH_TIMEOUT_MS = 5_000;

/** Error messages are cut to this many characters in the rollups. */
const MESSAGE_LIMIT = 500;

/**
 * Counts platform API calls in memory, per account, environment, minute, method, route template,
 * status and error code, with latency sums and the latest error message; every `intervalMs` (and at
 * close) the counts are upserted (additively, so any number of API processes may write the same
 * keys) into `api_call_minutes` and, in the same transaction, `api_call_days`. A request never waits
 * for the database; a crash loses at most one interval of counts. Failed flushes keep their counts
 * for the next one (up to MAX_PENDING_KEYS keys).
 */
export class PostgresApiCallRecorder implements ApiCallRecorder {
  private buckets = new Map<string, MinuteBucket>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  /** Flushes started and not finished. */
  private inFlight = 0;
  private closed = false;

  constructor(
    private readonly knex: Knex,
    private readonly logger: Logger,
    private readonly options: { enabled: boolean; intervalMs: number },
  ) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Starts the flush timer (it does not keep the process alive). */
  start(): void {
    if (this.timer || this.closed || !this.options.enabled) return;
    this.timer = setInterval(() => {
      if (this.inFlight) return; // a slow flush (database trouble) is not queued up behind
      this.flush().catch(() => undefined); // logged by flushNow; the counts stay for the next tick
    }, this.options.intervalMs);
    this.timer.unref();
  }

  record(call: ApiCall): void {
    if (!this.options.enabled) return;
    const at = call.at ?? Date.now();
    const minute = at - (at % MINUTE_MS);
    const errorCode = call.status >= 400 ? (call.errorCode ?? errorCodeForStatus(call.status)) : '';
    const key = `${call.accountId}\u0001${call.environment}\u0001${minute}\u0001${call.method}\u0001${call.route}\u0001${call.status}\u0001${errorCode}`;
    const bucket = this.buckets.get(key);
    const message = errorCode && call.errorMessage ? call.errorMessage.slice(0, MESSAGE_LIMIT) : null;
    if (bucket) {
      bucket.calls += 1;
      bucket.latencyMsSum += call.latencyMs;
      if (at >= bucket.lastAt) {
        bucket.lastAt = at;
        bucket.lastMessage = message;
      }
      return;
    }
    this.buckets.set(key, {
      accountId: call.accountId,
      environment: call.environment,
      minute,
      method: call.method,
      route: call.route,
      status: call.status,
      errorCode,
      calls: 1,
      latencyMsSum: call.latencyMs,
      lastAt: at,
      lastMessage: message,
    });
  }

  /** Keys waiting for the next flush (for tests and logs). */
  get pendingKeys(): number {
    return this.buckets.size;
  }

  /**
   * Writes every count recorded before the call. Flushes run one at a time: a call during a flush
   * waits for it, then writes what came in meanwhile.
   */
  flush(): Promise<void> {
    this.inFlight += 1;
    const next = this.flushing
      .catch(() => undefined)
      .then(() => this.flushNow())
      .finally(() => {
        this.inFlight -= 1;
      });
    this.flushing = next;
    return next;
  }

  /** Stops the timer and writes what is left, waiting at most CLOSE_FLUSH_TIMEOUT_MS (shutdown has 10 s). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), CLOSE_FLUSH_TIMEOUT_MS);
    });
    try {
      const outcome = await Promise.race([this.flush().then(() => 'done' as const), timedOut]);
      if (outcome === 'timeout') throw new Error('timed out');
    } catch {
      this.logger.error(
        { keys: this.buckets.size },
        'analytics: the last API call counts could not be written',
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private async flushNow(): Promise<void> {
    if (this.buckets.size === 0) return;
    const batch = this.buckets;
    this.buckets = new Map();
    try {
      await this.write([...batch.values()]);
    } catch (error) {
      this.restore(batch);
      this.logger.warn(
        { err: error, keys: batch.size },
        'analytics: flushing API call counts failed; retrying',
      );
      throw error;
    }
  }

  /** Puts a batch whose flush failed back in front of what was recorded since. */
  private restore(batch: Map<string, MinuteBucket>): void {
    if (batch.size + this.buckets.size > MAX_PENDING_KEYS) {
      const calls = [...batch.values()].reduce((sum, b) => sum + b.calls, 0);
      this.logger.error(
        { keys: batch.size, calls },
        'analytics: too many unwritten API call counts; dropped',
      );
      return;
    }
    for (const [key, newer] of this.buckets) {
      const older = batch.get(key);
      if (!older) {
        batch.set(key, newer);
        continue;
      }
      older.calls += newer.calls;
      older.latencyMsSum += newer.latencyMsSum;
      if (newer.lastAt >= older.lastAt) {
        older.lastAt = newer.lastAt;
        older.lastMessage = newer.lastMessage;
      }
    }
    this.buckets = batch;
  }

  /** Both rollups in one transaction, rows in key order (concurrent writers lock in the same order). */
  private async write(rows: MinuteBucket[]): Promise<void> {
    rows.sort(compareBuckets);
    const days = dayRows(rows);
    await this.knex.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += BATCH_ROWS) {
        const chunk = rows.slice(i, i + BATCH_ROWS);
        await trx.raw(MINUTES_UPSERT, [
          chunk.map((r) => r.accountId),
          chunk.map((r) => r.environment),
          chunk.map((r) => new Date(r.minute).toISOString()),
          chunk.map((r) => r.method),
          chunk.map((r) => r.route),
          chunk.map((r) => r.status),
          chunk.map((r) => r.errorCode),
          chunk.map((r) => r.calls),
          chunk.map((r) => r.latencyMsSum),
          chunk.map((r) => new Date(r.lastAt).toISOString()),
          chunk.map((r) => r.lastMessage),
        ]);
      }
      for (let i = 0; i < days.length; i += BATCH_ROWS) {
        const chunk = days.slice(i, i + BATCH_ROWS);
        await trx.raw(DAYS_UPSERT, [
          chunk.map((r) => r.accountId),
          chunk.map((r) => r.environment),
          chunk.map((r) => r.day),
          chunk.map((r) => r.errorCode),
          chunk.map((r) => r.calls),
          chunk.map((r) => r.latencyMsSum),
          chunk.map((r) => new Date(r.lastAt).toISOString()),
          chunk.map((r) => r.lastMessage),
        ]);
      }
    });
  }
}
