/**
 * npm run bench:outbound — /healthz latency while hostile MCP servers stream oversized answers
 * (issue 26, item 3: p99 within 2× its baseline). The platform runs in a child process (as in
 * bench:api); this process runs 4 MCP servers whose tools/call answers OUTBOUND_BENCH_MB (default 50)
 * of JSON as fast as they are read, and 4 callers that call one tool on each, one call every
 * BENCH_CALL_INTERVAL_MS (default 250; 0: back to back, which measures tool-call throughput more
 * than hostile answers), for BENCH_DURATION seconds. /healthz is measured at a constant rate (open loop, see constantRate)
 * first alone (baseline), then during the calls. Prints p50/p99 of both, their ratio, what the
 * calls answered and the platform process's peak RSS growth.
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

function startPlatform(env: Record<string, string>): Promise<{ child: ChildProcess; apiPort: number }> {
  const child = fork(path.join(__dirname, 'api-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (ports) => resolve({ child, apiPort: (ports as { apiPort: number }).apiPort }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
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

/** Calls `toolId` every CALL_INTERVAL_MS until `until`; counts the answers by outcome. */
async function callRepeatedly(
  request: ReturnType<typeof benchRequester>,
  key: string,
  toolId: string,
  until: number,
  outcomes: Map<string, number>,
): Promise<void> {
  while (performance.now() < until) {
    const next = performance.now() + CALL_INTERVAL_MS;
    const answer = await request('POST', `/api/v2/developers/tools/${toolId}/test`, key, { arguments: {} });
    const data = answer.data as { success: boolean; errorCode?: string; error?: string };
    const outcome = data.success ? 'success (the whole answer)' : (data.errorCode ?? `failed: ${data.error}`);
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    const pause = Math.min(next, until) - performance.now();
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({ logger, namespace: 'default', searchAttributes: {} });
  const workspace = benchWorkspace('outbound');
  const hostile: HostileServer[] = [];
  const { child, apiPort } = await startPlatform({
    NODE_ENV: 'development',
    DATABASE_URL: workspace.databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
    DEFAULT_PLAN: 'pro',
  });
  try {
    const base = `http://127.0.0.1:${apiPort}`;
    const request = benchRequester(base);
    const token = await signDevToken(workspace.dataDir, 'bench@example.com');
    const key = (
      await request('POST', '/api/v1/developers/keys', token, { name: 'bench', environment: 'live' })
    ).key.fullKey as string;
    const tools: string[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const server = await startHostileServer(ANSWER_MB * 1024 * 1024);
      hostile.push(server);
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
    const healthz = { url: `${base}/healthz`, rate: HEALTH_RATE, seconds: DURATION, connections: 4 };

    await constantRate({ ...healthz, seconds: 2 }); // warm-up
    const baseline = await constantRate(healthz);
    const rssBefore = rssMiB(child.pid!);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMiB(child.pid!));
    }, 50);
    const outcomes = new Map<string, number>();
    const until = performance.now() + DURATION * 1000;
    const calls = Promise.all(tools.map((id) => callRepeatedly(request, key, id, until, outcomes)));
    const underLoad = await constantRate(healthz);
    await calls;
    clearInterval(sampler);

    const line = (name: string, r: typeof baseline) =>
      `${name.padEnd(46)} p50 ${String(r.p50).padStart(6)} ms   p99 ${String(r.p99).padStart(6)} ms   non-2xx ${r.bad}/${r.total}`;
    console.log(
      `\nbench:outbound — ${DURATION}s per run, /healthz at ${HEALTH_RATE} req/s, ${STREAMS} MCP servers answering ${ANSWER_MB} MB each, a call to each every ${CALL_INTERVAL_MS} ms, ${os.cpus().length} cores\n`,
    );
    console.log(line('/healthz alone (baseline)', baseline));
    console.log(line(`/healthz during ${STREAMS} hostile streams`, underLoad));
    console.log(
      `\np99 ratio (during/baseline): ${(underLoad.p99 / baseline.p99).toFixed(2)}× (target <= 2×)`,
    );
    console.log(`p50 ratio (during/baseline): ${(underLoad.p50 / baseline.p50).toFixed(2)}×`);
    const answered = [...outcomes.entries()].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
    console.log(`tool calls answered: ${answered || 'none'}`);
    const written = hostile.flatMap((s) => s.answers).map((a) => a.written);
    const meanMiB = written.reduce((a, b) => a + b, 0) / Math.max(1, written.length) / 1024 / 1024;
    console.log(
      `hostile answers: ${written.length}, mean ${meanMiB.toFixed(1)} MiB written before the platform hung up`,
    );
    console.log(
      `platform RSS: ${rssBefore.toFixed(0)} MiB before, peak ${rssPeak.toFixed(0)} MiB during the calls`,
    );
  } finally {
    child.kill('SIGTERM');
    for (const server of hostile) await server.close();
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
