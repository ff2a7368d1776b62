/**
 * npm run bench:activities — the Activities API (src/activity-log/):
 *  1. logs 20 000 activities through the API, 32 requests in flight, and prints req/s;
 *  2. times stats over them through the API (p50/p95 of 20 runs each);
 *  3. inserts 1 000 000 activities of another account with generate_series in SQL (spread over 90
 *     days, 5 000 users, 8 types) and times stats over a 30-day window and the full range, by
 *     type/day/user and none, with and without a payload metric. Target: stats over 1M ≤ 200 ms.
 * The API runs in a child process (bench/api-server.ts) with RATE_LIMITS=off.
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { signDevToken } from '../src/auth/dev-idp';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { benchWorkspace, percentile, runBench } from './support';

const LOGGED = Number(process.env.BENCH_ACTIVITIES ?? 20_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const BULK = Number(process.env.BENCH_BULK_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const TARGET_MS = 200;
const TYPES = ['order.placed', 'call.started', 'call.ended', 'tool.used', 'note.added', 'payment.received'];

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(path.join(__dirname, 'api-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (ports) => resolve({ child, port: (ports as { apiPort: number }).apiPort }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

async function json(url: string, init: RequestInit & { token?: string; body?: string } = {}) {
  const res = await fetch(url, {
    ...init,
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
  });
  const body = (await res.json()) as any;
  if (res.status >= 300)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A developer account with a live key: its publisher id and key. */
async function developer(base: string, dataDir: string, email: string) {
  const token = await signDevToken(dataDir, email);
  const me = await json(`${base}/api/v1/developers/me`, { token });
  const created = await json(`${base}/api/v1/developers/keys`, {
    method: 'POST',
    token,
    body: JSON.stringify({ name: 'bench', environment: 'live' }),
  });
  return { accountId: me.publisherId as string, key: created.key.fullKey as string };
}

/** Times `RUNS` sequential GETs of `url` (after one warm-up): p50 and p95 in ms, and the last body. */
async function timed(url: string, key: string) {
  await json(url, { token: key });
  const times: number[] = [];
  let last: any;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    last = await json(url, { token: key });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), body: last };
}

const fmt = (ms: number) => `${ms.toFixed(1).padStart(7)} ms`;

async function statsTable(base: string, key: string, windows: [string, string][], target?: number) {
  const cases: [string, string][] = [
    ['none', ''],
    ['type', '&groupBy=type'],
    ['day', '&groupBy=day&limit=1000'],
    ['user', '&groupBy=user'],
  ];
  let worst = 0;
  for (const [windowName, windowQuery] of windows) {
    for (const metric of ['', 'amount']) {
      for (const [groupName, groupQuery] of cases) {
        const url = `${base}/api/v2/developers/activities/stats?${windowQuery}${groupQuery}${metric ? `&metric=${metric}` : ''}`;
        const r = await timed(url, key);
        worst = Math.max(worst, r.p95);
        const label = `${windowName}, groupBy ${groupName}${metric ? `, metric ${metric}` : ''}`;
        const verdict = target === undefined ? '' : r.p50 <= target ? '  ok' : `  OVER ${target} ms`;
        console.log(
          `  ${label.padEnd(42)} p50 ${fmt(r.p50)}   p95 ${fmt(r.p95)}   total ${String(r.body.data.total).padStart(8)}   groups ${String(r.body.data.groupCount).padStart(5)}${verdict}`,
        );
      }
    }
  }
  return worst;
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({ logger, namespace: 'default', searchAttributes: {} });
  const workspace = benchWorkspace('act');
  const { child, port } = await startServer({
    NODE_ENV: 'development',
    DATABASE_URL: workspace.databaseUrl,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
  });
  const base = `http://127.0.0.1:${port}`;
  const pg = new Client({ connectionString: workspace.databaseUrl });
  try {
    console.log(`\nbench:activities — ${os.cpus().length} cores, rate limits off\n`);

    // 1. log activities through the API
    const small = await developer(base, workspace.dataDir, 'bench-activities@example.com');
    const now = Date.now();
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < LOGGED) {
          const i = next++;
          const body = {
            type: TYPES[i % TYPES.length],
            payload: {
              amount: (i % 1000) / 10,
              order: { total: i % 250, currency: 'EUR' },
              channel: 'voice',
            },
            userId: `user-${i % 500}`,
            sessionId: `sess_bench${Math.floor(i / 8)}`,
            ...(i % 3 === 0 ? { personaId: 'persona_bench' } : {}),
            occurredAt: new Date(now - (i % 28) * 86_400_000 - (i % 3600) * 1000).toISOString(),
          };
          const res = await fetch(`${base}/api/v2/developers/activities`, {
            method: 'POST',
            headers: { authorization: `Bearer ${small.key}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          await res.arrayBuffer();
          if (res.status !== 201) failed++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `1. POST /activities: ${LOGGED} in ${seconds.toFixed(1)} s = ${(LOGGED / seconds).toFixed(0)} req/s (${IN_FLIGHT} in flight, ${failed} failed; each also emits activity.created)`,
    );

    // 2. stats over them
    console.log(`\n2. GET /activities/stats over ${LOGGED} activities (${RUNS} runs each)`);
    await statsTable(base, small.key, [['last 30 days', '']]);

    // 3. one million rows of one account, inserted in SQL
    const big = await developer(base, workspace.dataDir, 'bench-activities-1m@example.com');
    await pg.connect();
    const insertStarted = performance.now();
    await pg.query(
      `insert into activities (id, account_id, environment, type, payload, user_id, session_id, persona_id, occurred_at, created_at, updated_at)
       select 'act_bulk' || lpad(g::text, 12, '0'), $1, 'live',
         (array['order.placed','call.started','call.ended','tool.used','note.added','payment.received','ticket.opened','ticket.closed'])[1 + g % 8],
         case when g % 10 = 0 then jsonb_build_object('amount', 'n/a', 'channel', 'voice')
              else jsonb_build_object('amount', ((g::bigint * 7919) % 10000) / 100.0,
                                      'order', jsonb_build_object('total', g % 500, 'currency', 'EUR'), 'channel', 'voice') end,
         case when g % 20 = 0 then null else 'user-' || (g % 5000) end,
         'sess_bulk' || (g / 10),
         case when g % 3 = 0 then 'persona_bench' end,
         t, t, t
       from generate_series(1, $2::int) g,
         lateral (select now() - (g * 90 * 86400.0 / $2::int) * interval '1 second' as t) x`,
      [big.accountId, BULK],
    );
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    await pg.query('vacuum analyze activities');
    await pg.query('vacuum analyze activity_daily_counts');
    const size = await pg.query(
      `select pg_size_pretty(pg_table_size('activities')) as heap, pg_size_pretty(pg_indexes_size('activities')) as indexes`,
    );
    console.log(
      `\n3. ${BULK} activities of one account (90 days, 5 000 users, 8 types) inserted in ${insertSeconds.toFixed(1)} s with generate_series (indexes and the daily rollup trigger included); heap ${size.rows[0].heap}, indexes ${size.rows[0].indexes}`,
    );
    console.log(`   GET /activities/stats (${RUNS} runs each; target p50 <= ${TARGET_MS} ms)`);
    const from = new Date(Date.now() - 366 * 86_400_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    await statsTable(
      base,
      big.key,
      [
        ['last 30 days', ''],
        ['full range', `from=${from}&to=${to}`],
      ],
      TARGET_MS,
    );
    const context = await timed(`${base}/api/v2/developers/activities?userId=user-42&limit=20`, big.key);
    console.log(
      `\n   GET /activities?userId=…&limit=20 (newest first, with total): p50 ${fmt(context.p50)}   p95 ${fmt(context.p95)}`,
    );
    const load = os.loadavg()[0];
    console.log(`\nload average at the end: ${load.toFixed(2)} on ${os.cpus().length} cores`);
  } finally {
    await pg.end().catch(() => undefined);
    child.kill('SIGTERM');
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
