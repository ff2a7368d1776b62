import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

const SERVER_URL = process.env.BENCH_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A throwaway database on the local server and a data dir for one benchmark run; `drop` removes both. */
export function benchWorkspace(label: string): {
  databaseUrl: string;
  dataDir: string;
  drop(): Promise<void>;
} {
  const dbName = `vp_bench_${label}_${Date.now().toString(36)}`;
  const url = new URL(SERVER_URL);
  url.pathname = `/${dbName}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `vp-bench-${label}-`));
  return {
    databaseUrl: url.toString(),
    dataDir,
    async drop() {
      const admin = new Client({ connectionString: SERVER_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
      await admin.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** p50, p95 and p99 of a set of timings, and how many there were. */
export function latencyStats(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    n: sorted.length,
  };
}

/** Runs a benchmark's main and exits: 0 when it finished, 1 (with the error) when it failed. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * GET `url` at a constant arrival rate (open loop, like wrk2 or k6's constant-arrival-rate): request
 * i is due at start + i/rate and is sent then, whatever the earlier ones are doing, over a keep-alive
 * pool of at most `connections` connections. Latency runs from the moment a request was due, not from
 * when it left, so a stalled server or a late generator is counted and not hidden (no coordinated
 * omission).
 *
 * autocannon's `overallRate` is not this: each connection sends its share of a second back to back at
 * the start of the second and then pauses, so "1 000 req/s over 32 connections" is a burst of 1 000
 * requests 32 deep once a second, and its latencies are the queue of that burst.
 */
export async function constantRate(opts: {
  url: string;
  headers?: Record<string, string>;
  rate: number;
  seconds: number;
  connections: number;
}): Promise<{ rps: number; p50: number; p99: number; bad: number; total: number }> {
  const { Pool } = await import('undici');
  const target = new URL(opts.url);
  const pool = new Pool(target.origin, { connections: opts.connections, pipelining: 1 });
  const total = Math.round(opts.rate * opts.seconds);
  const interval = 1000 / opts.rate;
  const latencies: number[] = [];
  let bad = 0;
  let sent = 0;
  let settled = 0;
  const start = performance.now();
  const send = (due: number) =>
    pool
      .request({ path: target.pathname + target.search, method: 'GET', headers: opts.headers })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode >= 300) bad++;
        latencies.push(performance.now() - due);
      })
      .catch(() => {
        bad++;
      })
      .finally(() => {
        settled++;
      });
  await new Promise<void>((resolve) => {
    const tick = () => {
      const dueNow = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      while (sent < dueNow) {
        const due = start + sent * interval;
        sent++;
        void send(due).then(() => {
          if (settled === total) resolve();
        });
      }
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  const stats = latencyStats(latencies);
  const round = (n: number) => Math.round(n * 100) / 100;
  return { rps: latencies.length / elapsed, p50: round(stats.p50), p99: round(stats.p99), bad, total };
}

/** A JSON call to the platform under bench, with a bearer credential; a non-2xx answer throws. */
export function benchRequester(base: string) {
  return async (method: string, urlPath: string, auth: string, body?: unknown): Promise<any> => {
    const res = await fetch(base + urlPath, {
      method,
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${urlPath}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/** The operator token the benchmarks give the platform they start (to set an account's plan). */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/**
 * Moves the account of `idToken` to the enterprise plan (no plan budget, no limit on live streams):
 * the bench measures the platform, not the free plan's limits.
 */
export async function benchEnterprise(base: string, idToken: string): Promise<void> {
  const request = benchRequester(base);
  const me = await request('GET', '/api/v1/developers/me', idToken);
  await request('PUT', `/api/admin/accounts/${me.publisherId}/plan`, BENCH_ADMIN_TOKEN, {
    plan: 'enterprise',
  });
}
