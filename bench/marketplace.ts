/**
 * npm run bench:marketplace — in one run, against real PostgreSQL, a Temporal dev server and a real
 * MCP server:
 * 1. GET /api/marketplace/quota/check/:itemId at a constant 1 000 req/s (open loop) beside a bare Express route at
 *    the same rate (p50/p99; target p99 <= 10 ms);
 * 2. POST /api/marketplace/execute/:itemId (lookup, quota reservation + metering record, MCP
 *    tools/call on a kept session, outcome) beside the same tools/call made directly (p50/p95 and the
 *    overhead; target p95 <= 15 ms);
 * 3. GET /api/marketplace/browse/tools?q=… over 10 000 approved tools (ranked full-text search;
 *    target p95 <= 30 ms), and browse without q.
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { startMcpTestServer } from '../test/support/mcp-test-server';
import { benchWorkspace, constantRate, latencyStats, runBench } from './support';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const WARMUP = 30;

const WORDS = `weather forecast rain storm calendar meeting agenda booking restaurant table reservation flight
hotel travel itinerary invoice payment refund order shipping tracking parcel delivery inventory stock
price quote sales lead crm contact email message sms notification reminder alarm timer note memo task
todo project ticket support helpdesk issue bug deploy server monitor alert metric log search index
translate language dictionary spell grammar summary article news sports score music playlist podcast
radio movie showtime recipe cooking grocery nutrition fitness workout health doctor appointment
pharmacy insurance bank account balance transfer budget expense receipt tax stock crypto wallet
exchange currency convert unit math calculator formula chart report spreadsheet document file storage
photo image video camera scan barcode map route traffic parking taxi ride bike train bus schedule
weather radar pollen air quality temperature humidity wind sunrise sunset tide ocean surf ski snow
garden plant water energy solar battery charger car repair mechanic home smart light thermostat lock
door security camera pet dog cat vet school course lesson quiz homework tutor library book reading
poem story joke trivia game chess puzzle horoscope event ticket concert theater museum tour guide
review rating feedback survey poll vote petition charity donation volunteer job resume interview salary`
  .split(/\s+/)
  .filter(Boolean);

let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const pick = () => WORDS[Math.floor(random() * WORDS.length)];
const words = (n: number) => Array.from({ length: n }, pick).join(' ');
const title = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());

function startServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; apiPort: number; barePort: number }> {
  // the benchmark server of bench:api: the real app on one port, a bare Express route on another
  const child = fork(path.join(__dirname, 'api-server.ts'), [], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (ports) => resolve({ child, ...(ports as { apiPort: number; barePort: number }) }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

/** 10 000 approved tools from 50 publishers, inserted directly (their reviews are not what is measured). */
async function seed10k(db: Client, mcpUrl: string): Promise<void> {
  await db.query(
    `insert into marketplace_publishers (id, name, verified, created_at, updated_at)
     select 'pub_bench_' || g, 'Publisher ' || g, g % 5 = 0, now(), now() from generate_series(1, 50) g`,
  );
  const batch = 500;
  for (let start = 0; start < ITEMS; start += batch) {
    const values: unknown[] = [];
    const rows: string[] = [];
    for (let i = start; i < Math.min(start + batch, ITEMS); i++) {
      const name = title(`${pick()} ${pick()}`);
      const id = `${name.toLowerCase().replace(/\s+/g, '-')}-${i}`;
      const short = words(6);
      const long = words(30);
      const manifest = {
        id,
        name,
        version: '1.0.0',
        publisher: { id: `pub_bench_${(i % 50) + 1}`, name: `Publisher ${(i % 50) + 1}` },
        description: { short, long },
        execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcpUrl, toolName: 'add' },
        interface: { llmDescription: short },
      };
      const p = values.length;
      rows.push(
        `($${p + 1}, 'tool', $${p + 2}, 'approved', $${p + 3}, $${p + 4}, $${p + 5}, 'mcp', $${p + 6}, '1.0.0', '1.0.0', '1.0.0', $${p + 7}, now() - make_interval(mins => $${p + 8}), now() - make_interval(mins => $${p + 8}), now(), now())`,
      );
      values.push(
        id,
        manifest.publisher.id,
        name,
        short,
        long,
        JSON.stringify(manifest),
        Math.floor(random() * 5000),
        i,
      );
    }
    await db.query(
      `insert into marketplace_items (id, type, publisher_id, status, name, description_short, description_long,
         runtime_type, manifest, version, approved_version, latest_version, active_installs, published_at,
         approved_at, created_at, updated_at) values ${rows.join(', ')}`,
      values,
    );
  }
  await db.query('analyze marketplace_items');
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({ logger, namespace: 'default', searchAttributes: {} });
  const workspace = benchWorkspace('marketplace');
  const mcp = await startMcpTestServer();
  const server = await startServer({
    NODE_ENV: 'development',
    DATABASE_URL: workspace.databaseUrl,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMITS: 'off',
  });
  const db = new Client({ connectionString: workspace.databaseUrl });
  await db.connect();
  try {
    const base = `http://127.0.0.1:${server.apiPort}/api/marketplace`;
    const bareUrl = `http://127.0.0.1:${server.barePort}/bare`;
    const started = performance.now();
    await seed10k(db, mcp.url);
    const seededMs = performance.now() - started;
    // the measured tool, approved and installed by the benchmark user
    await db.query(
      `insert into marketplace_items (id, type, publisher_id, status, name, description_short, description_long,
         runtime_type, manifest, version, approved_version, latest_version, published_at, approved_at, created_at, updated_at)
       values ('bench-adder', 'tool', 'pub_bench_1', 'approved', 'Bench Adder', 'Adds', 'Adds two numbers', 'mcp', $1,
         '1.0.0', '1.0.0', '1.0.0', now(), now(), now(), now())`,
      [
        JSON.stringify({
          id: 'bench-adder',
          name: 'Bench Adder',
          version: '1.0.0',
          publisher: { id: 'pub_bench_1', name: 'Publisher 1' },
          description: { short: 'Adds', long: 'Adds two numbers' },
          execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcp.url, toolName: 'add' },
          interface: {
            llmDescription: 'Adds a and b',
            inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
          },
        }),
      ],
    );
    await db.query(
      `insert into marketplace_installations (id, user_id, item_id, item_type, granted_permissions, status, installed_at)
       values ('inst_bench', 'usr_bench', 'bench-adder', 'tool', '[]', 'active', now())`,
    );
    const user = { 'x-user-id': 'usr_bench', 'x-subscription-tier': 'enterprise' };

    // 1. quota check at a fixed rate, beside the bare route at the same rate
    // evenly paced (open loop), latency from each request's due time; see constantRate
    const paced = (url: string, headers: Record<string, string>) =>
      constantRate({ url, headers, rate: RATE, seconds: DURATION, connections: 32 });
    const quotaUrl = `${base}/quota/check/bench-adder`;
    await autocannon({ url: bareUrl, duration: 2, connections: 8 });
    await autocannon({ url: quotaUrl, headers: user, duration: 2, connections: 8 });
    const bare = await paced(bareUrl, {});
    const quota = await paced(quotaUrl, user);
    // capacity: the same two routes as fast as they go
    const flat = async (url: string, headers: Record<string, string>) =>
      (await autocannon({ url, headers, duration: Math.min(DURATION, 5), connections: 32 })).requests.average;
    const bareMax = await flat(bareUrl, {});
    const quotaMax = await flat(quotaUrl, user);

    // 2. POST /execute beside a direct tools/call on a kept session (and on a new connection)
    const sequential = async (fn: () => Promise<void>) => {
      for (let i = 0; i < WARMUP; i++) await fn();
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await fn();
        times.push(performance.now() - t);
      }
      return latencyStats(times);
    };
    const kept = new McpClient({ name: 'bench', version: '1' });
    await kept.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const direct = await sequential(async () => {
      await kept.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    });
    await kept.close();
    const directNew = await sequential(async () => {
      const client = new McpClient({ name: 'bench', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
      await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      await client.close();
    });
    const execute = await sequential(async () => {
      const res = await fetch(`${base}/execute/bench-adder`, {
        method: 'POST',
        headers: { ...user, 'content-type': 'application/json' },
        body: JSON.stringify({ arguments: { a: 2, b: 3 } }),
      });
      const body = (await res.json()) as { success?: boolean };
      if (!body.success) throw new Error(`execute: ${res.status} ${JSON.stringify(body)}`);
    });
    const metered = await db.query(
      `select count(*)::int as n from marketplace_usage where item_id = 'bench-adder'`,
    );

    // 3. browse over the 10 000 approved tools
    let totals = 0;
    const browse = (query: () => string) =>
      sequential(async () => {
        const res = await fetch(`${base}/browse/tools?${query()}`);
        const body = (await res.json()) as { totalCount?: number };
        if (!res.ok) throw new Error(`browse: ${res.status} ${JSON.stringify(body)}`);
        totals += body.totalCount ?? 0;
      });
    const oneWord = await browse(() => `q=${encodeURIComponent(pick())}`);
    const oneWordTotals = totals / (CALLS + WARMUP);
    totals = 0;
    const twoWords = await browse(() => `q=${encodeURIComponent(`${pick()} ${pick()}`)}`);
    const twoWordTotals = totals / (CALLS + WARMUP);
    const popular = await browse(() => `sort=popular&offset=${Math.floor(random() * 500)}`);

    const ms = (n: number) => `${n.toFixed(1).padStart(6)} ms`;
    const row = (name: string, s: { p50: number; p95: number; p99: number }) =>
      `${name.padEnd(48)} p50 ${ms(s.p50)}   p95 ${ms(s.p95)}   p99 ${ms(s.p99)}`;
    const rateRow = (name: string, r: Awaited<ReturnType<typeof paced>>) =>
      `${name.padEnd(48)} ${r.rps.toFixed(0).padStart(5)} req/s   p50 ${ms(r.p50)}   p99 ${ms(r.p99)}   non-2xx ${r.bad}/${r.total}`;
    console.log(
      `\nbench:marketplace — ${os.cpus().length} cores; ${ITEMS} approved tools seeded in ${(seededMs / 1000).toFixed(1)} s; request logs ${process.env.BENCH_LOG_LEVEL ?? 'info'}\n`,
    );
    console.log(
      `1. quota check at a constant ${RATE} req/s for ${DURATION} s (open loop, evenly paced, up to 32 keep-alive connections, latency from each request's due time)`,
    );
    console.log(rateRow('bare Express route, stock server (baseline)', bare));
    console.log(rateRow('GET /quota/check/:itemId', quota));
    console.log(
      `   p99 ${quota.p99} ms (target <= 10 ms); over bare: p99 +${(quota.p99 - bare.p99).toFixed(1)} ms`,
    );
    console.log(
      `   capacity (unpaced, 32 connections): bare ${bareMax.toFixed(0)} req/s, quota check ${quotaMax.toFixed(0)} req/s (${((quotaMax / bareMax) * 100).toFixed(0)}%)\n`,
    );
    console.log(`2. POST /execute, ${CALLS} sequential calls after ${WARMUP} warm-up`);
    console.log(row('direct tools/call, kept MCP session', direct));
    console.log(row('direct: new connection + tools/call', directNew));
    console.log(row('POST /execute/:itemId (metered)', execute));
    console.log(
      `   overhead over the kept direct session: p50 +${(execute.p50 - direct.p50).toFixed(1)} ms, p95 +${(execute.p95 - direct.p95).toFixed(1)} ms (target p95 <= 15 ms); ${metered.rows[0].n} metering records\n`,
    );
    console.log(
      `3. browse over ${ITEMS} approved tools, ${CALLS} sequential requests after ${WARMUP} warm-up`,
    );
    console.log(row(`q=<one word> (~${oneWordTotals.toFixed(0)} matches)`, oneWord));
    console.log(row(`q=<two words> (~${twoWordTotals.toFixed(0)} matches, ranked)`, twoWords));
    console.log(row('no q, sort=popular, random pages', popular));
    console.log(`   p95 with q: ${oneWord.p95.toFixed(1)} / ${twoWords.p95.toFixed(1)} ms (target <= 30 ms)`);
  } finally {
    await db.end();
    server.child.kill('SIGTERM');
    await mcp.close();
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
