import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import type { Logger } from 'pino';
import {
  type PlatformProcesses,
  type PlatformProcessesOptions,
  startPlatformProcesses,
} from '../src/app/cluster-processes';
import { signDevToken } from '../src/auth/dev-idp';
import { completeManifest } from '../test/support/personas';
import { call } from '../test/support/test-app';

export const ROOT = path.resolve(__dirname, '..');
const benchApiPort = Number(process.env.BENCH_CLUSTER_API_PORT ?? 14000);

/** The Temporal cluster a phase runs on. */
export interface ClusterTarget {
  address: string;
  namespace: string;
  uiUrl: string;
}

type V2 = (
  base: string,
  method: string,
  route: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<any>;

/** The platform started for one phase, with a developer, a test key and a persona to talk to. */
export interface BenchPlatform {
  platform: PlatformProcesses;
  /** The two API processes' base URLs. */
  apis: string[];
  token: string;
  key: string;
  personaId: string;
  /** `/api/v2/developers<route>` with the test key. */
  v2: V2;
  close(): Promise<void>;
}

export interface BenchPlatformOptions extends Pick<PlatformProcessesOptions, 'workersPerPool' | 'niceness'> {
  label: string;
  /** The PostgreSQL server the platform reaches (default the local one; a proxy for the chaos run). */
  databaseServerUrl?: string;
  logger: Logger;
  temporal: ClusterTarget;
  layout?: 'pools' | 'shared';
  apiPorts?: number[];
}

/**
 * The platform as `npm run cluster` runs it (two APIs, worker pools from dist/) on its own database
 * and task queues, for one phase of bench:cluster; `close` stops it and drops the database.
 */
export async function startBenchPlatform(opts: BenchPlatformOptions): Promise<BenchPlatform> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `vp-bench-cluster-${opts.label}-`));
  const platformDb = `vp_bench_cluster_${opts.label}_${Date.now().toString(36)}`;
  Object.assign(process.env, {
    TEMPORAL_QUEUE_LAYOUT: opts.layout ?? 'pools',
    TEMPORAL_TASK_QUEUE: `bench-${opts.label}`,
  });
  const server = new URL(opts.databaseServerUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  server.pathname = `/${platformDb}`;
  const platform = await startPlatformProcesses({
    logger: opts.logger,
    repoRoot: ROOT,
    runDir,
    temporal: opts.temporal,
    databaseUrl: server.toString(),
    apiPorts: opts.apiPorts ?? [benchApiPort, benchApiPort + 1],
    workersPerPool: opts.workersPerPool,
    niceness: opts.niceness,
  });
  const close = async () => {
    await platform.stop();
    await dropDatabase(platformDb);
    fs.rmSync(runDir, { recursive: true, force: true });
  };
  try {
    const apis = platform.apis.map((api) => api.url);
    const token = await signDevToken(platform.dataDir, `bench-${opts.label}@example.com`);
    const created = await call(apis[0]!, 'POST', '/api/v1/developers/keys', {
      token,
      body: { name: 'bench', environment: 'test' },
    });
    const key = created.body.key.fullKey as string;
    const v2: V2 = (base, method, route, body, headers) =>
      call(base, method, `/api/v2/developers${route}`, { token: key, body, headers });
    const persona = await call(apis[0]!, 'POST', '/api/v1/developers/personas', {
      token,
      body: { manifest: completeManifest(`bench-${opts.label}`) },
    });
    return { platform, apis, token, key, personaId: persona.body.persona.id, v2, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A webhook receiver that answers 200 after `delayMs` (a slow but healthy endpoint). */
export async function slowReceiver(delayMs: number) {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        received++;
        res.writeHead(200).end('ok');
      }, delayMs),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received: () => received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** BENCH_DELIVERIES-style load: `count` events triggered, `lanes` at a time (each a delivery per webhook). */
export async function triggerEvents(v2: V2, api: string, count: number, lanes = 20): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      const res = await v2(api, 'POST', '/events/trigger', { type: 'session.started' });
      if (res.status >= 300) throw new Error(`trigger: ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = new PgClient({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  await admin.end();
}

export const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;

/** A metric's value from an API's /metrics, summed over the series whose labels `match` accepts. */
export async function scrapeMetric(
  api: string,
  adminToken: string,
  name: string,
  match: (labels: string) => boolean = () => true,
): Promise<number> {
  const text = await (
    await fetch(`${api}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })
  ).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && match(l.slice(name.length, l.lastIndexOf(' '))))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}
