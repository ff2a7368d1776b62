import os from 'node:os';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApp } from '../src/app/app';
import { buildContext, closeServer, listen, startWorker } from '../src/app/runtime';
import { signDevToken } from '../src/auth/dev-idp';
import { loadConfig } from '../src/config/env';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { startMcpTestServer } from '../test/support/mcp-test-server';
import { benchWorkspace, latencyStats, runBench } from './support';

/**
 * bench:workflows — a 5-node voice workflow (start → mcp_call → condition → speak → end) against a
 * local MCP server, executed synchronously through POST /workflows/:id/execute (API, Temporal dev
 * server, one worker, PostgreSQL, all on this machine). Prints sequential latency percentiles, the
 * sustained rate with several callers at once, and the latency of calling the MCP tool directly.
 */

const SEQUENTIAL = Number(process.env.BENCH_EXECUTIONS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SUSTAIN_SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP = 30;

const stats = latencyStats;

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const workspace = benchWorkspace('workflows');
  const mcp = await startMcpTestServer();
  const config = loadConfig({
    NODE_ENV: 'development',
    DATABASE_URL: workspace.databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
  });
  const ctx = await buildContext(
    config,
    logger,
    { databaseUrl: workspace.databaseUrl, poolMax: 10, temporalAddress: temporal.address },
    { migrate: true, registerSearchAttributes: false },
  );
  const worker = await startWorker(ctx, temporal.address);
  // BENCH_EAGER=off measures the topology of separate api and worker processes (no eager start)
  const eager = process.env.BENCH_EAGER !== 'off';
  if (!eager) ctx.temporalEager = undefined;
  const { app } = createApp(ctx);
  // steady state: the speech threads' one-time warm-up (started by the app) is over before measuring
  await ctx.speech.warmed();
  const server = await listen(app, '127.0.0.1', 0);
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const token = await signDevToken(workspace.dataDir, 'bench@example.com');
    const post = async (urlPath: string, auth: string, body: unknown) => {
      const res = await fetch(base + urlPath, {
        method: 'POST',
        headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${urlPath}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const key = (await post('/api/v1/developers/keys', token, { name: 'bench', environment: 'live' })).key
      .fullKey;
    const mcpServer = (
      await post('/api/v2/developers/mcp-servers', key, { name: 'bench', endpoint: mcp.url })
    ).data;
    const workflow = (
      await post('/api/v2/developers/workflows', key, {
        name: 'Order status',
        trigger: { type: 'voice_command', config: { command: 'check my order status' } },
        nodes: [
          { id: 'start', type: 'start' },
          {
            id: 'lookup',
            type: 'mcp_call',
            config: {
              serverId: mcpServer.id,
              toolName: 'lookup_order',
              arguments: { orderId: '{{input.orderId}}' },
            },
          },
          { id: 'shipped', type: 'condition', config: { expression: 'lookup.result.status == "shipped"' } },
          { id: 'say', type: 'speak', config: { text: 'Order {{input.orderId}} has shipped.' } },
          { id: 'end', type: 'end' },
        ],
        edges: [
          { sourceId: 'start', targetId: 'lookup' },
          { sourceId: 'lookup', targetId: 'shipped' },
          { sourceId: 'shipped', targetId: 'say', condition: 'true' },
          { sourceId: 'shipped', targetId: 'end', condition: 'false' },
          { sourceId: 'say', targetId: 'end' },
        ],
      })
    ).data;

    let n = 0;
    const execute = async () => {
      const started = performance.now();
      const res = await post(`/api/v2/developers/workflows/${workflow.id}/execute`, key, {
        input: { orderId: `A-${++n}` },
      });
      if (res.data.status !== 'completed') throw new Error(`execution ${res.data.id}: ${res.data.status}`);
      return performance.now() - started;
    };
    const direct = async () => {
      const started = performance.now();
      const client = new McpClient({ name: 'bench', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
      await client.callTool({ name: 'lookup_order', arguments: { orderId: 'A-1' } });
      await client.close();
      return performance.now() - started;
    };

    for (let i = 0; i < WARMUP; i++) {
      await execute();
      await direct();
    }
    const directTimes: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) directTimes.push(await direct());
    const sequentialTimes: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) sequentialTimes.push(await execute());

    const loadTimes: number[] = [];
    const until = performance.now() + SUSTAIN_SECONDS * 1000;
    const loadStarted = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < until) loadTimes.push(await execute());
      }),
    );
    const loadSeconds = (performance.now() - loadStarted) / 1000;

    const d = stats(directTimes);
    const s = stats(sequentialTimes);
    const l = stats(loadTimes);
    const f = (x: number) => x.toFixed(1).padStart(6);
    const row = (name: string, r: { p50: number; p95: number; p99: number }) =>
      `${name.padEnd(44)} p50 ${f(r.p50)} ms   p95 ${f(r.p95)} ms   p99 ${f(r.p99)} ms`;
    console.log(
      `\nbench:workflows — 5-node graph (start → mcp_call → condition → speak → end), ${os.cpus().length} cores, eager start ${eager ? 'on (API and worker in one process, as npm start)' : 'off (as separate api and worker processes)'}\n`,
    );
    console.log(row(`MCP tool called directly (${SEQUENTIAL}×)`, d));
    console.log(row(`execute, one caller (${SEQUENTIAL}×)`, s));
    console.log(row(`execute, ${CONCURRENCY} callers (${loadTimes.length}×)`, l));
    console.log(
      `\nsequential: ${(1000 / (sequentialTimes.reduce((a, b) => a + b, 0) / SEQUENTIAL)).toFixed(1)} executions/s`,
    );
    console.log(
      `sustained:  ${(loadTimes.length / loadSeconds).toFixed(1)} executions/s over ${loadSeconds.toFixed(1)} s with ${CONCURRENCY} callers (target ≥ 30)`,
    );
    console.log(`end to end p95 (one caller): ${s.p95.toFixed(1)} ms (target ≤ 150 ms)`);
    console.log(
      `platform overhead over the direct tool call: p50 ${(s.p50 - d.p50).toFixed(1)} ms, p95 ${(s.p95 - d.p95).toFixed(1)} ms (${(s.p50 / d.p50).toFixed(1)}× at p50)`,
    );
  } finally {
    await closeServer(server);
    await worker.stop();
    await ctx.close();
    await mcp.close();
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
