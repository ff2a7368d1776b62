import type { PooledConnection } from '../common/mcp-connections';

interface Entry<C> {
  key: string;
  connection: Promise<PooledConnection<C>>;
  active: number;
  lastUsed: number;
  dead: boolean;
}

export interface PoolOptions {
  /** An unused connection is closed after this long. */
  idleMs: number;
  /** Most connections kept; past it the least recently used idle ones are closed. */
  max: number;
}

/**
 * Open MCP connections kept between tool calls, so a call is one request instead of the handshake
 * (initialize, initialized, the SSE probe) plus the call. A connection belongs to one key: the
 * server, its configuration version and the exact headers sent (secrets and OAuth token included),
 * so a rotated secret, a refreshed token or an edited server opens a new one. Concurrent calls
 * share a connection (JSON-RPC requests carry ids). One pool per process context.
 */
export class McpConnectionPool<C> {
  private readonly entries = new Map<string, Entry<C>>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: PoolOptions = { idleMs: 60_000, max: 256 }) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, options.idleMs / 2));
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Runs `fn` on the key's connection, opening it with `connect` when there is none. A failed
   * connect is not kept. When `fn` fails with an error `broken` says the connection caused, the
   * connection is dropped; when `retry` also says the server never handled the request (an expired
   * session), `fn` runs once more on a new connection.
   */
  async use<T>(
    key: string,
    connect: () => Promise<PooledConnection<C>>,
    fn: (client: C) => Promise<T>,
    judge: { broken(error: unknown): boolean; retry(error: unknown): boolean },
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const entry = this.acquire(key, connect);
      try {
        const { client } = await entry.connection.catch((error) => {
          this.drop(entry);
          throw error;
        });
        return await fn(client);
      } catch (error) {
        if (judge.broken(error)) this.drop(entry);
        if (attempt === 1 && judge.retry(error)) continue;
        throw error;
      } finally {
        entry.active--;
        entry.lastUsed = Date.now();
      }
    }
  }

  /** Closes every connection (process shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((entry) => this.end(entry)));
  }

  private acquire(key: string, connect: () => Promise<PooledConnection<C>>): Entry<C> {
    let entry = this.entries.get(key);
    if (entry && !entry.dead) {
      this.entries.delete(key); // re-inserted last: the map's order is least recently used first
    } else {
      entry = { key, connection: connect(), active: 0, lastUsed: Date.now(), dead: false };
      entry.connection.catch(() => undefined); // a failed connect is reported to its callers
    }
    entry.active++;
    if (!this.closed) this.entries.set(key, entry);
    this.trim();
    return entry;
  }

  private drop(entry: Entry<C>): void {
    if (entry.dead) return;
    entry.dead = true;
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    void this.end(entry);
  }

  private async end(entry: Entry<C>): Promise<void> {
    entry.dead = true;
    const connection = await entry.connection.catch(() => undefined);
    await connection?.close().catch(() => undefined);
  }

  private sweep(): void {
    const now = Date.now();
    for (const entry of [...this.entries.values()]) {
      if (entry.active === 0 && now - entry.lastUsed >= this.options.idleMs) this.drop(entry);
    }
  }

  private trim(): void {
    if (this.entries.size <= this.options.max) return;
    for (const entry of [...this.entries.values()]) {
      if (this.entries.size <= this.options.max) return;
      if (entry.active === 0) this.drop(entry);
    }
  }
}
