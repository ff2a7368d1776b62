/**
 * bench:cluster (docs/performance.md "On the cluster"): the production topology of `npm run
 * cluster` (a Temporal cluster on PostgreSQL, two API processes, a worker process per pool), the
 * platform run twice on it: with a task queue per pool, and with every workload on one shared queue
 * (TEMPORAL_QUEUE_LAYOUT=shared), as the contrast.
 *
 * Each run: a live session's REST turn timed alone (the floor of the same run), then while
 * BENCH_DELIVERIES webhook deliveries (2 000) are queued behind a receiver that takes 200 ms each.
 * Target: with pools, the turn's p95 under the flood ≤ 1.2 × its p95 alone.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { startPlatformProcesses } from '../src/app/cluster-processes';
import { signDevToken } from '../src/auth/dev-idp';
import { createLogger } from '../src/logging/logger';
import {
  dropTemporalDatabases,
  freshTemporalDatabases,
  LOCAL_POSTGRES,
} from '../src/temporal/cluster/schema';
import { startTemporalCluster } from '../src/temporal/cluster/temporal-cluster';
import { startLlmDouble } from '../test/support/llm-double';
import { completeManifest } from '../test/support/personas';
import { call } from '../test/support/test-app';
import { latencyStats } from './support';

const TURNS = Number(process.env.BENCH_TURNS ?? 30);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000);
const ROOT = path.resolve(__dirname, '..');
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'bench-cluster');
const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;

/** A webhook receiver that answers 200 after `delayMs` (a slow but healthy endpoint). */
async function slowReceiver(delayMs: number) {
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

type Layout = 'pools' | 'shared';

/** One layout on the running Temporal cluster: the turn alone, then under the flood. */
async function measureLayout(
  layout: Layout,
  temporal: { address: string; namespace: string; uiUrl: string },
) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `vp-bench-cluster-${layout}-`));
  const platformDb = `vp_bench_cluster_${layout}_${Date.now().toString(36)}`;
  Object.assign(process.env, { TEMPORAL_QUEUE_LAYOUT: layout, TEMPORAL_TASK_QUEUE: `bench-${layout}` });
  const platform = await startPlatformProcesses({
    logger,
    repoRoot: ROOT,
    runDir,
    temporal,
    databaseUrl: `postgres://postgres@127.0.0.1:5432/${platformDb}`,
    apiPorts: [14000, 14001],
  });
  const receiver = await slowReceiver(200);
  try {
    const [api, other] = [platform.apis[0]!.url, platform.apis[1]!.url];
    const token = await signDevToken(platform.dataDir, `bench-${layout}@example.com`);
    const key = (
      await call(api, 'POST', '/api/v1/developers/keys', {
        token,
        body: { name: 'bench', environment: 'test' },
      })
    ).body.key.fullKey as string;
    const v2 = (base: string, method: string, route: string, body?: unknown) =>
      call(base, method, `/api/v2/developers${route}`, { token: key, body });
    const persona = await call(api, 'POST', '/api/v1/developers/personas', {
      token,
      body: { manifest: completeManifest(`bench-${layout}`) },
    });
    const session = await v2(api, 'POST', '/sessions', {
      personaId: persona.body.persona.id,
      userId: 'bench',
    });
    const sessionId = session.body.data.id as string;
    const timeTurns = async (label: string) => {
      const times: number[] = [];
      for (let i = 0; i < TURNS + 3; i++) {
        const t0 = performance.now();
        const res = await v2(i % 2 ? api : other, 'POST', `/sessions/${sessionId}/turns`, {
          text: `${label} ${i}`,
        });
        if (res.status !== 200) throw new Error(`turn ${i}: ${res.status} ${JSON.stringify(res.body)}`);
        if (i >= 3) times.push(performance.now() - t0);
      }
      return latencyStats(times);
    };
    const alone = await timeTurns('alone');
    await v2(api, 'POST', '/webhooks', { name: 'flood', url: receiver.url, events: ['session.started'] });
    await flood(v2, api);
    const underFlood = await timeTurns('flood');
    const backlog = await scrapeBacklog(api, platform.adminToken);
    return { alone, underFlood, backlog, delivered: receiver.received() };
  } finally {
    await receiver.close();
    await platform.stop();
    await dropDatabase(platformDb);
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

/** BENCH_DELIVERIES events triggered, twenty at a time: each becomes a delivery workflow. */
async function flood(
  v2: (base: string, method: string, route: string, body?: unknown) => Promise<any>,
  api: string,
) {
  let next = 0;
  const lane = async () => {
    while (next < DELIVERIES) {
      next++;
      const res = await v2(api, 'POST', '/events/trigger', { type: 'session.started' });
      if (res.status >= 300) throw new Error(`trigger: ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: 20 }, lane));
}

/** The deliveries' queue backlog right after the flood's turns (the sum over the queues' task types). */
async function scrapeBacklog(api: string, adminToken: string): Promise<number> {
  const text = await (
    await fetch(`${api}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })
  ).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('temporal_task_queue_backlog{') && /pool="(deliveries|shared)"/.test(l))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new PgClient({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  await admin.end();
}

async function main(): Promise<void> {
  const llm = await startLlmDouble();
  Object.assign(process.env, {
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: 'bench-model',
    WEBHOOK_RETRY_DELAYS: '1,5,30',
    RATE_LIMITS: 'off', // 2 000 triggers, twenty at a time
  });
  const databases = freshTemporalDatabases('temporal_bench');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-bench-cluster-'));
  const temporal = await startTemporalCluster({ logger, runDir, databases, portBase: 19233, uiPort: 19080 });
  try {
    const target = { address: temporal.address, namespace: temporal.namespace, uiUrl: temporal.uiUrl };
    console.log(
      `bench:cluster: ${TURNS} REST turns alone, then with ${DELIVERIES} deliveries queued (receiver 200 ms)`,
    );
    for (const layout of ['pools', 'shared'] as const) {
      const r = await measureLayout(layout, target);
      const ratio = r.underFlood.p95 / r.alone.p95;
      console.log(`${layout.padEnd(7)} turn alone          p50 ${ms(r.alone.p50)}   p95 ${ms(r.alone.p95)}`);
      console.log(
        `${layout.padEnd(7)} turn, flood queued  p50 ${ms(r.underFlood.p50)}   p95 ${ms(r.underFlood.p95)}`,
      );
      console.log(
        `${layout.padEnd(7)} p95 ratio ${ratio.toFixed(2)}× (target with pools ≤ 1.20×); deliveries still queued after the turns: ${r.backlog}; delivered by then: ${r.delivered}`,
      );
    }
  } finally {
    await temporal.stop();
    await dropTemporalDatabases({ postgres: LOCAL_POSTGRES, databases }).catch(() => undefined);
    fs.rmSync(runDir, { recursive: true, force: true });
    await llm.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
