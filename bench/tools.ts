import http from 'node:http';
import os from 'node:os';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApp } from '../src/app/app';
import { buildContext, closeServer, listen } from '../src/app/runtime';
import { signDevToken } from '../src/auth/dev-idp';
import { loadConfig } from '../src/config/env';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { startMcpTestServer } from '../test/support/mcp-test-server';
import { benchWorkspace, percentile, runBench } from './support';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const WARMUP = 30;

async function measure(fn: () => Promise<void>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({ logger, namespace: 'default', searchAttributes: {} });
  const workspace = benchWorkspace('tools');
  const { dataDir } = workspace;
  const dbUrl = new URL(workspace.databaseUrl);
  const mcp = await startMcpTestServer();
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/tool`;

  const config = loadConfig({
    NODE_ENV: 'development',
    DATABASE_URL: dbUrl.toString(),
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
  });
  const ctx = await buildContext(
    config,
    logger,
    { databaseUrl: dbUrl.toString(), poolMax: 10, temporalAddress: temporal.address },
    { migrate: true, registerSearchAttributes: false },
  );
  const { app } = createApp(ctx);
  // steady state: the speech threads' one-time warm-up (started by the app) is over before measuring
  await ctx.speech.warmed();
  const server = await listen(app, '127.0.0.1', 0);
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const token = await signDevToken(dataDir, 'bench@example.com');
    const post = async (urlPath: string, auth: string, body: unknown) => {
      const res = await fetch(base + urlPath, {
        method: 'POST',
        headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      if (!res.ok) throw new Error(`${urlPath}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const key = (await post('/api/v1/developers/keys', token, { name: 'bench', environment: 'live' })).key
      .fullKey;
    await fetch(`${base}/api/v2/developers/secrets/TOOL_TOKEN`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'bench-secret-value' }),
    });
    const mcpServer = (
      await post('/api/v2/developers/mcp-servers', key, { name: 'bench', endpoint: mcp.url })
    ).data;
    const params = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } };
    const mcpTool = (
      await post('/api/v2/developers/tools', key, {
        name: 'add',
        type: 'mcp',
        config: { serverId: mcpServer.id, toolName: 'add' },
        parameters: params,
      })
    ).data;
    const webhookTool = (
      await post('/api/v2/developers/tools', key, {
        name: 'hook',
        type: 'webhook',
        config: {
          url: receiverUrl,
          method: 'POST',
          headers: { Authorization: 'Bearer {{secrets.TOOL_TOKEN}}' },
        },
        parameters: params,
      })
    ).data;
    const args = { a: 2, b: 3 };

    const directMcp = await measure(async () => {
      const client = new McpClient({ name: 'bench', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
      await client.callTool({ name: 'add', arguments: args });
      await client.close();
    });
    const kept = new McpClient({ name: 'bench', version: '1' });
    await kept.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const directKeptMcp = await measure(async () => {
      await kept.callTool({ name: 'add', arguments: args });
    });
    await kept.close();
    const platformMcp = await measure(async () => {
      const res = await post(`/api/v2/developers/tools/${mcpTool.id}/test`, key, { arguments: args });
      if (!res.data.success) throw new Error(JSON.stringify(res));
    });
    const directWebhook = await measure(async () => {
      const res = await fetch(receiverUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer bench-secret-value' },
        body: JSON.stringify(args),
      });
      await res.text();
    });
    const platformWebhook = await measure(async () => {
      const res = await post(`/api/v2/developers/tools/${webhookTool.id}/test`, key, { arguments: args });
      if (!res.data.success) throw new Error(JSON.stringify(res));
    });

    const f = (n: number) => n.toFixed(1).padStart(6);
    const row = (name: string, r: { p50: number; p95: number }) =>
      `${name.padEnd(36)} p50 ${f(r.p50)} ms   p95 ${f(r.p95)} ms`;
    console.log(
      `\nbench:tools — ${CALLS} sequential calls each (after ${WARMUP} warm-up), ${os.cpus().length} cores\n`,
    );
    console.log(row('mcp: direct (connect + tools/call)', directMcp));
    console.log(row('mcp: direct, kept session (tools/call)', directKeptMcp));
    console.log(row('mcp: POST /tools/:id/test', platformMcp));
    console.log(row('webhook: direct POST', directWebhook));
    console.log(row('webhook: POST /tools/:id/test', platformWebhook));
    const over = (p: { p50: number; p95: number }, d: { p50: number; p95: number }) =>
      `p50 ${(p.p50 - d.p50).toFixed(1)} ms, p95 ${(p.p95 - d.p95).toFixed(1)} ms`;
    console.log(`\nplatform overhead, mcp:     ${over(platformMcp, directMcp)} (target p95 <= 20 ms)`);
    console.log(
      `  over a kept direct session: ${over(platformMcp, directKeptMcp)} (the platform keeps MCP sessions too)`,
    );
    console.log(`platform overhead, webhook: ${over(platformWebhook, directWebhook)} (target p95 <= 20 ms)`);
  } finally {
    await closeServer(server);
    await ctx.close();
    await mcp.close();
    receiver.closeAllConnections();
    receiver.close();
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
