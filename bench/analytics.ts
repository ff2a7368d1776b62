/**
 * npm run bench:analytics — console analytics (src/analytics/):
 *  1. request throughput of an authenticated platform read (GET /api/v2/developers/secrets) with
 *     recording on beside recording off (ANALYTICS_RECORDING=off): two API processes on the same
 *     database, measured in alternating rounds in the same run. Target: on ≥ 95% of off.
 *  2. records 1 000 000 API calls of one account through the recorder itself (spread evenly over the
 *     last 365 days, 8 route templates, 6 statuses, flushed every 100 000 calls) and inserts 100 000
 *     sessions in SQL (365 days, 5 000 users, 25 personas, 90% ended; the session_days trigger runs).
 *  3. times GET /analytics/overview, /usage and /personas (every period; usage over 30 and 366 days)
 *     and /errors through the console API. Target: p95 ≤ 50 ms each.
 * The API runs in child processes (bench/api-server.ts) with RATE_LIMITS=off.
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { Client } from 'pg';
import { PostgresApiCallRecorder } from '../src/analytics/recorder';
import { signDevToken } from '../src/auth/dev-idp';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { benchWorkspace, latencyStats, runBench } from './support';

const CALLS = Number(process.env.BENCH_API_CALLS ?? 1_000_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 16);
const DURATION = Number(process.env.BENCH_DURATION ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TARGET_MS = 50;
const TARGET_RATIO = 0.95;
const DAY_MS = 86_400_000;

const ROUTES: [string, string][] = [
  ['GET', '/api/v2/developers/tools'],
  ['GET', '/api/v2/developers/tools/:id'],
  ['POST', '/api/v2/developers/tools/:id/test'],
  ['GET', '/api/v2/developers/webhooks'],
  ['POST', '/api/v2/developers/sessions'],
  ['POST', '/api/v2/developers/sessions/:id/turns'],
  ['POST', '/api/v2/developers/activities'],
  ['GET', '/api/v2/developers/workflows/:id/executions'],
];
const STATUSES: [number, string | undefined][] = [
  [200, undefined],
  [200, undefined],
  [200, undefined],
  [201, undefined],
  [200, undefined],
  [201, undefined],
  [200, undefined],
  [400, 'VALIDATION_FAILED'],
  [200, undefined],
  [404, 'NOT_FOUND'],
  [200, undefined],
  [200, undefined],
  [429, 'RATE_LIMIT_EXCEEDED'],
  [200, undefined],
  [200, undefined],
  [500, 'INTERNAL'],
];

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

async function json(url: string, init: { method?: string; token?: string; body?: string } = {}) {
  const res = await fetch(url, {
    method: init.method,
    body: init.body,
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

async function throughput(url: string, key: string) {
  const result = await autocannon({
    url,
    headers: { authorization: `Bearer ${key}` },
    duration: DURATION,
    connections: CONNECTIONS,
  });
  return { rps: result.requests.average, p99: result.latency.p99, bad: result.non2xx + result.errors };
}

const fmt = (ms: number) => `${ms.toFixed(1).padStart(6)} ms`;

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({ logger, namespace: 'default', searchAttributes: {} });
  const workspace = benchWorkspace('analytics');
  const env = {
    NODE_ENV: 'development',
    DATABASE_URL: workspace.databaseUrl,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
    VOICE_WORKERS: '1',
  };
  // one after the other: the first creates the schema and the development keys in DATA_DIR
  const on = await startServer({ ...env, ANALYTICS_RECORDING: 'on' });
  const off = await startServer({ ...env, ANALYTICS_RECORDING: 'off' });
  const pg = new Client({ connectionString: workspace.databaseUrl });
  const knex = knexFactory({ client: 'pg', connection: workspace.databaseUrl, pool: { min: 0, max: 2 } });
  try {
    const base = `http://127.0.0.1:${on.port}`;
    console.log(`\nbench:analytics — ${os.cpus().length} cores, rate limits off\n`);

    // 1. throughput, recording on beside off
    const token = await signDevToken(workspace.dataDir, 'bench-analytics@example.com');
    const me = await json(`${base}/api/v1/developers/me`, { token });
    const accountId = me.publisherId as string;
    const created = await json(`${base}/api/v1/developers/keys`, {
      method: 'POST',
      token,
      body: JSON.stringify({ name: 'bench', environment: 'live' }),
    });
    const key = created.key.fullKey as string;
    for (const name of ['CRM_TOKEN', 'SLACK_WEBHOOK', 'OPENAI_KEY']) {
      await json(`${base}/api/v2/developers/secrets/${name}`, {
        method: 'PUT',
        token: key,
        body: JSON.stringify({ value: 'x'.repeat(40) }),
      });
    }
    const urlOf = (port: number) => `http://127.0.0.1:${port}/api/v2/developers/secrets`;
    await throughput(urlOf(on.port), key); // warm-up both
    await throughput(urlOf(off.port), key);
    const rounds: { on: number; off: number }[] = [];
    let bad = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // alternate which goes first, so drift on the shared machine favours neither
      const first = round % 2 === 0 ? 'off' : 'on';
      const a = await throughput(urlOf(first === 'on' ? on.port : off.port), key);
      const b = await throughput(urlOf(first === 'on' ? off.port : on.port), key);
      bad += a.bad + b.bad;
      rounds.push(first === 'on' ? { on: a.rps, off: b.rps } : { on: b.rps, off: a.rps });
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const rpsOn = mean(rounds.map((r) => r.on));
    const rpsOff = mean(rounds.map((r) => r.off));
    console.log(
      `1. GET /api/v2/developers/secrets, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION} s each (non-2xx ${bad})`,
    );
    for (const [i, r] of rounds.entries()) {
      console.log(
        `   round ${i + 1}: recording on ${r.on.toFixed(0).padStart(6)} req/s   off ${r.off.toFixed(0).padStart(6)} req/s   ${((r.on / r.off) * 100).toFixed(1)}%`,
      );
    }
    const ratio = rpsOn / rpsOff;
    const ratios = rounds.map((r) => r.on / r.off).sort((x, y) => x - y);
    const medianRatio = ratios[Math.floor(ratios.length / 2)];
    console.log(
      `   mean:    recording on ${rpsOn.toFixed(0).padStart(6)} req/s   off ${rpsOff.toFixed(0).padStart(6)} req/s   ratio ${(ratio * 100).toFixed(1)}% (target >= ${TARGET_RATIO * 100}%)${ratio >= TARGET_RATIO ? '  ok' : '  UNDER TARGET'}; median of the rounds' ratios ${(medianRatio * 100).toFixed(1)}%`,
    );
    // what recording adds to one request, measured alone: record() into a warm map
    const probe = new PostgresApiCallRecorder(knex, logger, { enabled: true, intervalMs: 60_000 });
    const PROBES = 1_000_000;
    const probeStarted = performance.now();
    for (let i = 0; i < PROBES; i++) {
      probe.record({
        accountId,
        environment: 'live',
        method: 'GET',
        route: ROUTES[i % ROUTES.length][1],
        status: 200,
        latencyMs: 1,
      });
    }
    const recordUs = ((performance.now() - probeStarted) * 1000) / PROBES;
    console.log(
      `   record() alone: ${recordUs.toFixed(2)} µs a call = ${((recordUs / (1e6 / rpsOff)) * 100).toFixed(2)}% of a request's ${(1e6 / rpsOff).toFixed(0)} µs (at the off server's rate); flushed once a second`,
    );

    // 2. one million recorded calls, one hundred thousand sessions
    await pg.connect();
    const recorder = new PostgresApiCallRecorder(knex, logger, { enabled: true, intervalMs: 60_000 });
    const now = Date.now();
    const span = 365 * DAY_MS;
    const recordStarted = performance.now();
    let flushMs = 0;
    for (let i = 0; i < CALLS; i++) {
      const [method, route] = ROUTES[i % ROUTES.length];
      const [status, errorCode] = STATUSES[(i * 7) % STATUSES.length];
      recorder.record({
        accountId,
        environment: 'live',
        method,
        route,
        status,
        errorCode,
        errorMessage: errorCode ? `bench ${errorCode.toLowerCase()}` : undefined,
        latencyMs: 5 + ((i * 37) % 200) / 4,
        at: now - Math.floor((i * span) / CALLS) - 1,
      });
      if ((i + 1) % 100_000 === 0 || i === CALLS - 1) {
        const flushStarted = performance.now();
        await recorder.flush();
        flushMs += performance.now() - flushStarted;
      }
    }
    const recordSeconds = (performance.now() - recordStarted) / 1000;
    const sessionsStarted = performance.now();
    await pg.query(
      `insert into personas (id, account_id, status, manifest, name, tagline, category, created_at, updated_at)
       select 'persona_bench' || g, $1, 'published', '{}'::jsonb, 'Bench persona ' || g, 'bench', 'customer_support', now(), now()
       from generate_series(1, 25) g`,
      [accountId],
    );
    await pg.query(
      `insert into sessions (id, account_id, environment, persona_id, user_id, status, greeting, started_at, ended_at, end_reason, created_at, updated_at)
       select 'sess_bench' || g, $1, 'live', 'persona_bench' || (1 + (g * 7) % 25), 'user-' || ((g::bigint * 7919) % 5000),
         case when g % 10 = 0 then 'active' else 'ended' end, 'Hello',
         t, case when g % 10 = 0 then null else t + ((30 + (g * 13) % 570) * interval '1 second') end,
         case when g % 10 = 0 then null else 'user' end, t, t
       from generate_series(1, $2::int) g, lateral (select now() - (g * 365 * 86400.0 / $2::int) * interval '1 second' as t) x`,
      [accountId, SESSIONS],
    );
    const sessionSeconds = (performance.now() - sessionsStarted) / 1000;
    for (const table of [
      'api_call_minutes',
      'api_call_days',
      'sessions',
      'session_days',
      'session_user_days',
      'session_day_users',
      'session_persona_days',
      'session_users',
    ]) {
      await pg.query(`vacuum analyze ${table}`);
    }
    const sizes = await pg.query(
      `select (select count(*) from api_call_minutes) as minutes, (select count(*) from api_call_days) as days,
              (select count(*) from session_days) as session_days`,
    );
    const s = sizes.rows[0];
    console.log(
      `\n2. ${CALLS} API calls recorded in ${recordSeconds.toFixed(1)} s (flushes ${(flushMs / 1000).toFixed(1)} s: ${((CALLS / flushMs) * 1000).toFixed(0)} calls/s into ${s.minutes} minute rows and ${s.days} day rows)`,
    );
    console.log(
      `   ${SESSIONS} sessions inserted in ${sessionSeconds.toFixed(1)} s (the rollup triggers included: ${s.session_days} persona-user-days)`,
    );

    // 3. the analytics API
    console.log(
      `\n3. console analytics over them (${RUNS} runs each after one warm-up; target p95 <= ${TARGET_MS} ms)`,
    );
    const today = new Date(now).toISOString().slice(0, 10);
    const yearAgo = new Date(now - 365 * DAY_MS).toISOString().slice(0, 10);
    const cases: [string, string, boolean][] = [
      ['overview (week, default)', '/overview', true],
      ['overview day', '/overview?period=day', true],
      ['overview month', '/overview?period=month', true],
      ['overview year', '/overview?period=year', true],
      ['usage (last 30 days, default)', '/usage', true],
      ['usage 366 days', `/usage?from=${yearAgo}&to=${today}`, true],
      ['personas (week, default)', '/personas', true],
      ['personas day', '/personas?period=day', true],
      ['personas month', '/personas?period=month', true],
      ['personas year', '/personas?period=year', true],
      ['errors (week)', '/errors', false],
      ['errors year', '/errors?period=year', false],
    ];
    let worst = 0;
    let sample: any;
    for (const [label, query, targeted] of cases) {
      const url = `${base}/api/v1/developers/analytics${query}`;
      await json(url, { token });
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        const body = await json(url, { token });
        times.push(performance.now() - started);
        if (query === '/overview?period=year') sample = body.overview;
      }
      const st = latencyStats(times);
      if (targeted) worst = Math.max(worst, st.p95);
      const verdict = targeted ? (st.p95 <= TARGET_MS ? '  ok' : `  OVER ${TARGET_MS} ms`) : '';
      console.log(`   ${label.padEnd(32)} p50 ${fmt(st.p50)}   p95 ${fmt(st.p95)}${verdict}`);
    }
    console.log(
      `   (year overview: ${sample.totalApiCalls} calls, ${sample.uniqueUsers} users, ${sample.activePersonas} personas, error rate ${(sample.errorRate * 100).toFixed(1)}%, ${sample.avgResponseTime.toFixed(1)} ms)`,
    );
    console.log(
      `\nworst p95 of overview/usage/personas: ${worst.toFixed(1)} ms (target <= ${TARGET_MS} ms); throughput with recording ${(ratio * 100).toFixed(1)}% of without (target >= ${TARGET_RATIO * 100}%)`,
    );
    console.log(`load average at the end: ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`);
  } finally {
    await pg.end().catch(() => undefined);
    await knex.destroy().catch(() => undefined);
    on.child.kill('SIGTERM');
    off.child.kill('SIGTERM');
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
