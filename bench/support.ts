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
