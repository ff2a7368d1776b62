/**
 * npm run bench:outbound — /healthz latency while hostile MCP servers stream oversized answers
 * (issue 26, item 3: p99 within 2× its baseline). The platform runs in a child process (as in
 * bench:api); this process runs 4 MCP servers whose tools/call answers OUTBOUND_BENCH_MB (default 50)
 * of JSON as fast as they are read, and 4 callers that call one tool on each, one call every
 * BENCH_CALL_INTERVAL_MS (default 250; 0: back to back, which measures tool-call throughput more
 * than hostile answers), for BENCH_DURATION seconds. /healthz is measured at a constant rate (open loop, see constantRate)
 * first alone (baseline), then during the calls. Prints p50/p99 of both, their ratio, what the
 * calls answered and the platform process's peak RSS growth.
 *
 * The floor, measured the same way in the same run: a bare Node.js server (outbound-floor-server.ts,
 * its own process) that only reads each hostile answer to the same 1 MiB cap with undici and hangs
 * up. Its ratio is what this machine allows any server doing that much (the hostile servers, the
 * loopback traffic and the measuring client share the same 2 cores); the platform's is beside it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signDevToken } from '../src/auth/dev-idp';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { type HostileServer, startHostileServer } from '../test/support/hostile-server';
import { benchRequester, benchWorkspace, constantRate, runBench } from './support';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ANSWER_MB = Number(process.env.OUTBOUND_BENCH_MB ?? 50);
const HEALTH_RATE = Number(process.env.BENCH_HEALTH_RATE ?? 100);
const CALL_INTERVAL_MS = Number(process.env.BENCH_CALL_INTERVAL_MS ?? 250);
const STREAMS = 4;

/** Forks `script` (under tsx) and waits for the ports it reports. */
function startChild<T>(
  script: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; ports: T }> {
  const child = fork(path.join(__dirname, script), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (ports) => resolve({ child, ports: ports as T }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** The resident set of process `pid` in MiB (Linux), or NaN elsewhere. */
function rssMiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Runs `call` every CALL_INTERVAL_MS until `until`; counts the answers by the outcome it names. */
async function callRepeatedly(
  call: () => Promise<string>,
  until: number,
  outcomes: Map<string, number>,
): Promise<void> {
  while (performance.now() < until) {
    const next = performance.now() + CALL_INTERVAL_MS;
    const outcome = await call();
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    const pause = Math.min(next, until) - performance.now();
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

type Latency = Awaited<ReturnType<typeof constantRate>>;

interface Phases {
  baseline: Latency;
  underLoad: Latency;
  outcomes: Map<string, number>;
  rssBefore: number;
  rssPeak: number;
}

/**
 * `healthzUrl` at HEALTH_RATE for DURATION seconds alone (after a 2 s warm-up), then again while each
 * of `calls` runs every CALL_INTERVAL_MS; the peak RSS of process `pid` meanwhile.
 */
async function measurePhases(
  healthzUrl: string,
  calls: (() => Promise<string>)[],
  pid: number,
): Promise<Phases> {
  const healthz = { url: healthzUrl, rate: HEALTH_RATE, seconds: DURATION, connections: 4 };
  await constantRate({ ...healthz, seconds: 2 }); // warm-up
  const baseline = await constantRate(healthz);
  const rssBefore = rssMiB(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMiB(pid));
  }, 50);
  const outcomes = new Map<string, number>();
  const until = performance.now() + DURATION * 1000;
  const running = Promise.all(calls.map((call) => callRepeatedly(call, until, outcomes)));
  const underLoad = await constantRate(healthz);
  await running;
  clearInterval(sampler);
  return { baseline, underLoad, outcomes, rssBefore, rssPeak };
}

/** The floor's calls: each asks the floor server to read one hostile server's answer to the cap. */
function floorCalls(floorBase: string, hostile: HostileServer[]): (() => Promise<string>)[] {
  return hostile.map((server) => async () => {
    const res = await fetch(`${floorBase}/read?url=${encodeURIComponent(server.mcpUrl)}`, { method: 'POST' });
    const body = (await res.json()) as { read?: number; error?: string };
    return body.read !== undefined && body.read > 1024 * 1024 ? 'cut at the cap' : `failed: ${body.error}`;
  });
}

/** The platform's calls: a test call of each hostile MCP tool, named by how it answered. */
function platformCalls(request: ReturnType<typeof benchRequester>, key: string, tools: string[]) {
  return tools.map((toolId) => async () => {
    const answer = await request('POST', `/api/v2/developers/tools/${toolId}/test`, key, { arguments: {} });
    const data = answer.data as { success: boolean; errorCode?: string; error?: string };
    return data.success ? 'success (the whole answer)' : (data.errorCode ?? `failed: ${data.error}`);
  });
}

/** An API key, and one MCP server and tool for each hostile server, on the platform at `base`. */
async function registerHostileTools(base: string, dataDir: string, hostile: HostileServer[]) {
  const request = benchRequester(base);
  const token = await signDevToken(dataDir, 'bench@example.com');
  const key = (
    await request('POST', '/api/v1/developers/keys', token, { name: 'bench', environment: 'live' })
  ).key.fullKey as string;
  const tools: string[] = [];
  for (const [i, server] of hostile.entries()) {
    const registered = await request('POST', '/api/v2/developers/mcp-servers', key, {
      name: `hostile-${i}`,
      transport: 'http',
      endpoint: server.mcpUrl,
    });
    const tool = await request('POST', '/api/v2/developers/tools', key, {
      name: `dump_${i}`,
      type: 'mcp',
      config: { serverId: registered.data.id, toolName: 'dump' },
    });
    tools.push(tool.data.id);
  }
  return { request, key, tools };
}

function report(floor: Phases, platform: Phases, hostile: HostileServer[]): void {
  const line = (name: string, r: Latency) =>
    `${name.padEnd(50)} p50 ${String(r.p50).padStart(6)} ms   p99 ${String(r.p99).padStart(6)} ms   non-2xx ${r.bad}/${r.total}`;
  const ratio = (p: Phases, q: 'p50' | 'p99') => (p.underLoad[q] / p.baseline[q]).toFixed(2);
  const answered = (p: Phases) => [...p.outcomes.entries()].map(([o, n]) => `${n} ${o}`).join(', ') || 'none';
  console.log(
    `\nbench:outbound — ${DURATION}s per run, /healthz at ${HEALTH_RATE} req/s, ${STREAMS} MCP servers answering ${ANSWER_MB} MB each, a call to each every ${CALL_INTERVAL_MS} ms, ${os.cpus().length} cores\n`,
  );
  console.log(line('floor: bare Node.js /healthz alone', floor.baseline));
  console.log(line(`floor: during ${STREAMS} hostile streams read to 1 MiB`, floor.underLoad));
  console.log(line('platform: /healthz alone (baseline)', platform.baseline));
  console.log(line(`platform: during ${STREAMS} hostile streams`, platform.underLoad));
  console.log(`\nfloor p99 ratio (during/alone):    ${ratio(floor, 'p99')}×   p50 ${ratio(floor, 'p50')}×`);
  console.log(
    `platform p99 ratio (during/alone): ${ratio(platform, 'p99')}× (target <= 2×)   p50 ${ratio(platform, 'p50')}×`,
  );
  console.log(
    `platform p99 during / floor p99 during: ${(platform.underLoad.p99 / floor.underLoad.p99).toFixed(2)}×`,
  );
  console.log(`floor reads: ${answered(floor)}`);
  console.log(`platform tool calls answered: ${answered(platform)}`);
  const written = hostile.flatMap((s) => s.answers).map((a) => a.written);
  const meanMiB = written.reduce((a, b) => a + b, 0) / Math.max(1, written.length) / 1024 / 1024;
  console.log(
    `hostile answers: ${written.length}, mean ${meanMiB.toFixed(1)} MiB written before the reader hung up`,
  );
  console.log(
    `RSS: floor ${floor.rssBefore.toFixed(0)} → peak ${floor.rssPeak.toFixed(0)} MiB; platform ${platform.rssBefore.toFixed(0)} → peak ${platform.rssPeak.toFixed(0)} MiB`,
  );
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({ logger, namespace: 'default', searchAttributes: {} });
  const workspace = benchWorkspace('outbound');
  const hostile: HostileServer[] = [];
  const children: ChildProcess[] = [];
  try {
    const platform = await startChild<{ apiPort: number }>('api-server.ts', {
      NODE_ENV: 'development',
      DATABASE_URL: workspace.databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      DATA_DIR: workspace.dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMITS: 'off',
      DEFAULT_PLAN: 'pro',
    });
    children.push(platform.child);
    const floor = await startChild<{ port: number }>('outbound-floor-server.ts');
    children.push(floor.child);
    for (let i = 0; i < STREAMS; i++) hostile.push(await startHostileServer(ANSWER_MB * 1024 * 1024));
    const base = `http://127.0.0.1:${platform.ports.apiPort}`;
    const { request, key, tools } = await registerHostileTools(base, workspace.dataDir, hostile);
    const floorBase = `http://127.0.0.1:${floor.ports.port}`;
    const floorPhases = await measurePhases(
      `${floorBase}/healthz`,
      floorCalls(floorBase, hostile),
      floor.child.pid!,
    );
    const platformPhases = await measurePhases(
      `${base}/healthz`,
      platformCalls(request, key, tools),
      platform.child.pid!,
    );
    report(floorPhases, platformPhases, hostile);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    for (const server of hostile) await server.close();
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
