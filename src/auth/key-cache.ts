import { Client as PgClient } from 'pg';
import type { Environment } from '../common/owner';
import type { Plan } from '../config/env';
import type { Logger } from '../logging/logger';

/** An API key as the platform authenticator reads it (KEY_LOOKUP_SQL in platform-auth.ts). */
export interface KeyRow {
  id: string;
  account_id: string;
  environment: Environment;
  scopes: string[];
  last_used_at: string | Date | null;
  revoked_at: string | Date | null;
  plan: Plan;
}

/** The channel the triggers of Migration20261130100000ApiKeyChanges notify. */
export const KEY_CHANGES_CHANNEL = 'vp_api_key_changes';
/** Where each cache says it has dropped a change (payload: the change's subject). */
const KEY_HEARD_CHANNEL = 'vp_api_key_heard';
/** The listener's application_name, so an operator (or a test) finds it in pg_stat_activity. */
export const KEY_CACHE_APPLICATION_NAME = 'vp-key-cache';
/** A notification's payload for a change of an account (its plan, or the account gone). */
export const accountChange = (accountId: string) => `account:${accountId}`;

const DEFAULTS = {
  maxEntries: 10_000,
  /** A safety net only: a change is normally dropped from every instance's cache by its notification. */
  maxAgeMs: 60_000,
  /** How long a write waits for its own instance to hear it (then it answers anyway, with a warning). */
  awaitChangeMs: 2_000,
  /** The longest wait between tries to re-establish a lost LISTEN connection. */
  maxBackoffMs: 5_000,
};
/** How many recently heard changes are remembered, for a writer that asks after the notification came. */
const HEARD_MEMORY = 1_000;

interface Entry {
  row: KeyRow;
  cachedAt: number;
}

/** A wait of awaitChange: re-checked on every notification; `dropped` when the connection goes. */
interface Waiter {
  check(): boolean;
  done(outcome: 'met' | 'dropped'): void;
}

/**
 * Key hash → key row, in memory, so an authenticated request pays no read (docs/api-contract.md
 * "API keys"). It is used only while its LISTEN connection (`vp_api_key_changes`) is up: before the
 * connection is established, and from the moment it is lost until it is back, the cache is empty and
 * every lookup reads the database. A notification drops the key it names (or every key of the
 * account it names); only unrevoked keys are kept, and none longer than `maxAgeMs`. Without a
 * listen URL (embedded PGlite, one connection) there is no cache at all.
 *
 * A write that must be seen everywhere at once (a revoke, a plan change) takes `mark()` before it
 * and `awaitChange()` after it. Each cache that hears a change drops it, then says so on
 * `vp_api_key_heard`; awaitChange returns once this instance has heard the change and every cache
 * connected to the database (pg_stat_activity) has said it dropped it. Hearing it here is not
 * enough: each listener's backend sends it on its own schedule, and a loaded instance may read it
 * after serving the client's next request.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every notification and every change of the connection: a read older than it is not kept. */
  private generation = 0;
  /** What was heard lately, with the generation it came at (insertion order: oldest first). */
  private readonly heard = new Map<string, number>();
  /** For what was heard lately: the backends (one per cache) that said they dropped it since. */
  private readonly acks = new Map<string, Set<number>>();
  private readonly waiters = new Set<Waiter>();
  private listener?: PgClient;
  private started = false;
  private closed = false;
  private failures = 0;
  private retry?: NodeJS.Timeout;
  private readonly opts: typeof DEFAULTS;

  constructor(
    private readonly deps: {
      logger: Logger;
      /** Connection string for LISTEN; omitted where only one connection is allowed (PGlite): no cache. */
      listenUrl?: string;
    } & Partial<typeof DEFAULTS>,
  ) {
    this.opts = { ...DEFAULTS, ...deps };
  }

  /** Whether lookups are being cached now (the LISTEN connection is up). */
  get active(): boolean {
    return this.listener !== undefined;
  }

  /**
   * The key of `keyHash`, from the cache when it holds it, else from `read` (kept when it is an
   * unrevoked key and nothing changed while it was read). The connection is opened by the API's
   * authenticator (start()), so a process that authenticates nothing (a worker) holds none.
   */
  async lookup(keyHash: string, read: (keyHash: string) => Promise<KeyRow | undefined>) {
    this.start();
    const cached = this.fresh(keyHash);
    if (cached) return cached;
    const generation = this.generation;
    const row = await read(keyHash);
    if (row && !row.revoked_at && this.listener && this.generation === generation) this.keep(keyHash, row);
    return row;
  }

  /** Records a `last_used_at` write in the cached row, so the next write waits its full interval. */
  noteUsed(keyHash: string, lastUsedAt: Date): void {
    const entry = this.entries.get(keyHash);
    if (entry) entry.row = { ...entry.row, last_used_at: lastUsedAt };
  }

  /** A mark to take before a write whose notification `awaitChange` then waits for. */
  mark(): number {
    return this.generation;
  }

  /**
   * Resolves once this instance has heard a change of `subject` (a key hash, or `accountChange(id)`)
   * after `since`, and every cache connected to the database has dropped it; at once when this one
   * caches nothing; after `awaitChangeMs` at the latest (logged).
   */
  async awaitChange(subject: string, since: number): Promise<void> {
    const listener = this.listener;
    if (!listener) return;
    const deadline = Date.now() + this.opts.awaitChangeMs;
    let outcome = await this.until(() => (this.heard.get(subject) ?? -1) > since, deadline);
    if (outcome === 'met') {
      const caches = await listener
        .query<{ pid: number }>(
          'select pid from pg_stat_activity where application_name = $1 and datname = current_database()',
          [KEY_CACHE_APPLICATION_NAME],
        )
        .then((r) => r.rows.map((row) => row.pid))
        .catch(() => undefined);
      if (!caches) return; // the connection went: nothing is cached here any more
      outcome = await this.until(() => caches.every((pid) => this.acks.get(subject)?.has(pid)), deadline);
    }
    if (outcome === 'timeout') {
      this.deps.logger.warn(
        { subject: subject.startsWith('account:') ? subject : `${subject.slice(0, 8)}…` },
        'API key change not dropped by every key cache in time; answering anyway',
      );
    }
  }

  private until(check: () => boolean, deadline: number): Promise<'met' | 'timeout' | 'dropped'> {
    if (!this.listener) return Promise.resolve('dropped');
    if (check()) return Promise.resolve('met');
    return new Promise((resolve) => {
      const finish = (outcome: 'met' | 'timeout' | 'dropped') => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(outcome);
      };
      const waiter: Waiter = { check, done: finish };
      const timer = setTimeout(() => finish('timeout'), Math.max(0, deadline - Date.now()));
      this.waiters.add(waiter);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const listener = this.listener;
    this.drop();
    await listener?.end().catch(() => undefined);
  }

  /** Opens the LISTEN connection (once; lookups open it too), so this process caches from now on. */
  start(): void {
    if (this.started || this.closed || !this.deps.listenUrl) return;
    this.started = true;
    void this.connect();
  }

  private fresh(keyHash: string): KeyRow | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    this.entries.delete(keyHash);
    if (!this.listener || Date.now() - entry.cachedAt > this.opts.maxAgeMs) return undefined;
    this.entries.set(keyHash, entry); // the most recently used is the last to be evicted
    return entry.row;
  }

  private keep(keyHash: string, row: KeyRow): void {
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { row, cachedAt: Date.now() });
    while (this.entries.size > this.opts.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  private async connect(): Promise<void> {
    const client = new PgClient({
      connectionString: this.deps.listenUrl,
      application_name: KEY_CACHE_APPLICATION_NAME,
    });
    client.on('notification', (message) => {
      if (client !== this.listener) return;
      if (message.channel === KEY_CHANGES_CHANNEL) this.hear(message.payload ?? '');
      else if (message.channel === KEY_HEARD_CHANNEL) this.acked(message.payload ?? '', message.processId);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${KEY_CHANGES_CHANNEL}; LISTEN ${KEY_HEARD_CHANNEL}`);
      if (this.closed) throw new Error('closed');
      this.listener = client;
      this.generation++;
      if (this.failures > 0) this.deps.logger.info('API key cache: LISTEN connection back, caching again');
      this.failures = 0;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (this.closed) return;
      this.failures++;
      if (this.failures === 1) {
        this.deps.logger.warn(
          { err: error },
          'API key cache: LISTEN unavailable; every lookup reads the database',
        );
      }
      this.reconnectLater();
    }
  }

  /** The connection failed or ended: the cache is emptied and bypassed until it is back. */
  private lost(client: PgClient, error?: Error): void {
    if (client !== this.listener) return;
    this.drop();
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.deps.logger.warn(
      { err: error },
      'API key cache: LISTEN connection lost; every lookup reads the database until it is back',
    );
    this.failures = 1;
    this.reconnectLater();
  }

  private reconnectLater(): void {
    const delay = Math.min(this.opts.maxBackoffMs, 100 * 2 ** this.failures);
    this.retry = setTimeout(() => void this.connect(), delay);
    this.retry.unref();
  }

  /** Forgets everything cached and releases every waiter (nothing is cached here to wait for). */
  private drop(): void {
    this.listener = undefined;
    this.generation++;
    this.entries.clear();
    this.heard.clear();
    this.acks.clear();
    for (const waiter of [...this.waiters]) waiter.done('dropped');
  }

  /** A notification: a key hash, or `account:<id>` for every key of that account. */
  private hear(subject: string): void {
    this.generation++;
    if (subject.startsWith('account:')) {
      const accountId = subject.slice('account:'.length);
      for (const [keyHash, entry] of this.entries) {
        if (entry.row.account_id === accountId) this.entries.delete(keyHash);
      }
    } else {
      this.entries.delete(subject);
    }
    this.heard.delete(subject);
    this.heard.set(subject, this.generation);
    // the changes channel is read in commit order, so no cache's word on this change came before it
    this.acks.set(subject, new Set());
    if (this.heard.size > HEARD_MEMORY) {
      const oldest = this.heard.keys().next().value as string;
      this.heard.delete(oldest);
      this.acks.delete(oldest);
    }
    // dropped: say so to every cache (a writer may be waiting for it)
    this.listener?.query('select pg_notify($1, $2)', [KEY_HEARD_CHANNEL, subject]).catch(() => undefined);
    this.recheck();
  }

  /** A cache (its backend's pid) says it dropped `subject`. */
  private acked(subject: string, pid: number): void {
    this.acks.get(subject)?.add(pid);
    this.recheck();
  }

  private recheck(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.check()) waiter.done('met');
    }
  }
}
