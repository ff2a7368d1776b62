/**
 * npm run bench:api — an authenticated platform read (GET /api/v2/developers/secrets: key lookup,
 * rate limits, scope check, a database query) against a bare Express route and against its floor
 * (bare Express running the same two queries through `pg` on a pool of the same size), same machine,
 * same run. Prints req/s, p50, p99 and the ratios (target: >= 70 % of the floor's throughput, p99
 * <= 1.5x the floor's); then p50/p99 of the authenticated route at a constant 200 req/s
 * (open loop, evenly paced; see constantRate in bench/support.ts); then the SDK's overhead over a
 * bare fetch of the same request (bench/sdk-overhead.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { signDevToken } from '../src/auth/dev-idp';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { sdkOverhead } from './sdk-overhead';
import { benchWorkspace, constantRate } from './support';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Ports {
  apiPort: number;
  barePort: number;
}

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; ports: Ports }> {
  const child = fork(path.join(__dirname, 'api-server.ts'), [], {
    execArgv: [
      // the platform's runtime flags (package.json's start, the Dockerfile), for the floor's routes too
      '--max-semi-space-size=32',
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (ports) => resolve({ child, ports: ports as Ports }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

async function run(url: string, headers: Record<string, string>, opts: { connections?: number }) {
  const result = await autocannon({
    url,
    headers,
    duration: DURATION,
    connections: opts.connections ?? CONNECTIONS,
  });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx,
    total: result.requests.total,
  };
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({ logger, namespace: 'default', searchAttributes: {} });
  const workspace = benchWorkspace('api');
  const { dataDir } = workspace;
  const dbUrl = new URL(workspace.databaseUrl);
  const { child, ports } = await startServer({
    NODE_ENV: 'development',
    DATABASE_URL: dbUrl.toString(),
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMITS: process.env.BENCH_RATE_LIMITS ?? 'off',
  });
  try {
    const base = `http://127.0.0.1:${ports.apiPort}`;
    const token = await signDevToken(dataDir, 'bench@example.com');
    const created = await fetch(`${base}/api/v1/developers/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', environment: 'live' }),
    }).then((r) => r.json() as Promise<{ key: { fullKey: string } }>);
    const key = created.key.fullKey;
    for (const name of ['CRM_TOKEN', 'SLACK_WEBHOOK', 'OPENAI_KEY']) {
      await fetch(`${base}/api/v2/developers/secrets/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: 'x'.repeat(40) }),
      });
    }
    const authUrl = `${base}/api/v2/developers/secrets`;
    const bareUrl = `http://127.0.0.1:${ports.barePort}/bare`;
    const floorUrl = `http://127.0.0.1:${ports.barePort}/floor`;
    const auth = { authorization: `Bearer ${key}` };

    await run(bareUrl, {}, { connections: 8 }); // warm-up
    await run(authUrl, auth, { connections: 8 });
    await run(floorUrl, auth, { connections: 8 });
    const bare = await run(bareUrl, {}, {});
    const floor = await run(floorUrl, auth, {});
    const authed = await run(authUrl, auth, {});
    // evenly paced (open loop), latency from each request's due time; see constantRate
    const pacedRun = await constantRate({
      url: authUrl,
      headers: auth,
      rate: 200,
      seconds: DURATION,
      connections: 10,
    });
    const paced = { ...pacedRun, non2xx: pacedRun.bad };
    const sdk = await sdkOverhead(base, key);

    const line = (name: string, r: Awaited<ReturnType<typeof run>>) =>
      `${name.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${String(r.p99).padStart(4)} ms   non-2xx ${r.non2xx}/${r.total}`;
    console.log(`\nbench:api — ${DURATION}s per run, ${CONNECTIONS} connections, ${os.cpus().length} cores`);
    console.log(
      `rate limits ${process.env.BENCH_RATE_LIMITS ?? 'off'}, request logs ${process.env.BENCH_LOG_LEVEL ?? 'info'}\n`,
    );
    console.log(line('bare Express route, stock server (baseline)', bare));
    console.log(line('floor: bare Express + the same SQL through pg', floor));
    console.log(line('GET /api/v2/developers/secrets (API key)', authed));
    console.log(line('GET /api/v2/developers/secrets @ 200 req/s (paced)', paced));
    const ratio = authed.rps / bare.rps;
    console.log(`\nratio authenticated/bare: ${(ratio * 100).toFixed(1)}%`);
    const ofFloor = authed.rps / floor.rps;
    const p99Ratio = authed.p99 / Math.max(1, floor.p99);
    console.log(
      `authenticated/floor: ${(ofFloor * 100).toFixed(1)}% of its throughput (target >= 70%: ${ofFloor >= 0.7 ? 'met' : 'NOT met'}), p99 ${p99Ratio.toFixed(2)}x the floor's (target <= 1.5x: ${p99Ratio <= 1.5 ? 'met' : 'NOT met'})`,
    );
    console.log(`p99 at 200 req/s: ${paced.p99} ms (target < 25 ms)`);
    const ms = (v: number) => `${v.toFixed(2)} ms`;
    console.log(
      `\nthe SDK over a bare fetch, the same GET one at a time (${sdk.sdk.n} each, interleaved): fetch p50 ${ms(sdk.fetch.p50)} p95 ${ms(sdk.fetch.p95)}; client.secrets.list() p50 ${ms(sdk.sdk.p50)} p95 ${ms(sdk.sdk.p95)}`,
    );
    console.log(
      `SDK overhead at p50: ${ms(sdk.overheadP50)} (target <= 1 ms: ${sdk.overheadP50 <= 1 ? 'met' : 'NOT met'})`,
    );
  } finally {
    child.kill('SIGTERM');
    await temporal.stop();
    await workspace.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
