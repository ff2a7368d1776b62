import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { signDevToken } from '../src/auth/dev-idp';
import type { Logger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { orderDeskModel, startLlmDouble } from '../test/support/llm-double';
import { type McpTestServer, startMcpTestServer } from '../test/support/mcp-test-server';
import { completeManifest } from '../test/support/personas';
import { benchRequester, benchWorkspace, latencyStats } from './support';

/**
 * The platform of the session benches (bench:sessions, bench:evals) as `npm start` runs it (API and
 * worker in one child process; BENCH_SPLIT=1: two, as docker-compose.yml runs them; BENCH_CPU_PROF=<dir>
 * writes their CPU profiles there), against a Temporal dev server, a fresh PostgreSQL database, a real
 * MCP server (`orders`, registered in the test environment) and an LLM double that answers at once
 * (a question about an order → the lookup tool, then an answer from its result). This process is the
 * outside world: the callers, the model, the MCP server.
 */
export interface BenchPlatform {
  temporal: Awaited<ReturnType<typeof startTemporalDevServer>>;
  mcp: McpTestServer;
  llm: Awaited<ReturnType<typeof startLlmDouble>>;
  base: string;
  request: ReturnType<typeof benchRequester>;
  /** A developer's ID token (console API) and a test key with every scope (platform API). */
  token: string;
  key: string;
  persona: { id: string };
  stop(): Promise<void>;
}

export async function startBenchPlatform(
  label: string,
  logger: Logger,
  env: Record<string, string> = {},
): Promise<BenchPlatform> {
  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const workspace = benchWorkspace(label);
  const mcp = await startMcpTestServer();
  const llm = await startLlmDouble();
  llm.script(orderDeskModel('Hello!'));
  const split = process.env.BENCH_SPLIT === '1';
  const execArgv = [
    '--import',
    'tsx',
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
  ];
  const platformEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: workspace.databaseUrl,
    DATABASE_POOL_MAX: '20',
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
    LLM_BASE_URL: llm.baseUrl,
    VOICE_WORKERS: '1',
    BENCH_WORKER: split ? '0' : '1',
    ...env,
  };
  const spawn = (file: string) =>
    fork(path.join(__dirname, file), [], {
      execArgv,
      env: platformEnv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
  const platform = spawn('api-server.ts');
  const apiPort = await new Promise<number>((resolve, reject) => {
    platform.once('message', (m) => resolve((m as { apiPort: number }).apiPort));
    platform.once('exit', (code) => reject(new Error(`bench platform exited with ${code}`)));
  });
  const workerProcess: ChildProcess | null = split ? spawn('../src/bin/worker.ts') : null;
  const base = `http://127.0.0.1:${apiPort}`;
  const request = benchRequester(base);
  const stop = async () => {
    platform.kill('SIGTERM');
    workerProcess?.kill('SIGTERM');
    await new Promise((r) => platform.once('exit', r));
    await mcp.close();
    await llm.close();
    await temporal.stop();
    await workspace.drop();
  };
  try {
    const token = await signDevToken(workspace.dataDir, 'bench@example.com');
    const key = (
      await request('POST', '/api/v1/developers/keys', token, { name: 'bench', environment: 'test' })
    ).key.fullKey as string;
    const persona = (
      await request('POST', '/api/v1/developers/personas', token, {
        manifest: completeManifest('bench-agent'),
      })
    ).persona as { id: string };
    await request('POST', '/api/v2/developers/mcp-servers', key, { name: 'orders', endpoint: mcp.url });
    return { temporal, mcp, llm, base, request, token, key, persona, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Turns through the REST API, as a caller takes them: POST /sessions, then POST /sessions/:id/turns. */
export function restTurns(platform: BenchPlatform) {
  const { request, key, persona } = platform;
  return {
    startSession: async (userId: string) =>
      (await request('POST', '/api/v2/developers/sessions', key, { personaId: persona.id, userId })).data
        .id as string,
    /** One turn; its time from the request to the answer (ms). A wrong route or an error throws. */
    turn: async (sessionId: string, text: string, route: string) => {
      const started = performance.now();
      const res = await request('POST', `/api/v2/developers/sessions/${sessionId}/turns`, key, { text });
      if (res.data.route !== route || res.data.error) throw new Error(`turn: ${JSON.stringify(res.data)}`);
      return performance.now() - started;
    },
    endSession: (sessionId: string) =>
      request('POST', `/api/v2/developers/sessions/${sessionId}/end`, key, {}),
  };
}

/** `fn` `warmup` times unmeasured, then `n` times one after another: their timings' p50/p95/p99. */
export async function sequential(fn: () => Promise<number>, n: number, warmup = 20) {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await fn());
  return { ...latencyStats(times), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

/**
 * Runs each measure once per round, `n` rounds (after `warmup` rounds), starting each round at the
 * next measure, so that a baseline and what is compared with it meet the same moments of the machine
 * (a drift or a burst of noise lands on all of them, not on whichever block ran then).
 */
export async function interleaved(measures: (() => Promise<number>)[], n: number, warmup = 20) {
  const times: number[][] = measures.map(() => []);
  for (let round = 0; round < warmup + n; round++) {
    for (let k = 0; k < measures.length; k++) {
      const which = (round + k) % measures.length;
      const took = await measures[which]();
      if (round >= warmup) times[which].push(took);
    }
  }
  return times.map((t) => ({ ...latencyStats(t), mean: t.reduce((a, b) => a + b, 0) / t.length }));
}

/** The question of bench:sessions' one-tool LLM turn: the model → the MCP tool → the model. */
export const ONE_TOOL_QUESTION = 'Where is my order A-1?';
