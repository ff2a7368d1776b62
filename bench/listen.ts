import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../src/logging/logger';
import { startBenchPlatform } from './platform';
import { latencyStats, runBench } from './support';

const N = Number(process.env.BENCH_EVENTS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 10);
const ROOT = path.resolve(__dirname, '..');
const VP = path.join(ROOT, 'sdk', 'dist', 'cjs', 'cli', 'main.js');

/** A local server that answers 200 at once and notes when each event arrived (by X-Service-Event-Id). */
async function arrivalsServer() {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.set(String(req.headers['x-service-event-id']), performance.now());
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  return { url, arrivals, close: () => new Promise((r) => server.close(r)) };
}

/** `vp listen --forward-to <url>` as a developer runs it; resolves once it is ready. */
async function startListen(base: string, key: string, forwardTo: string): Promise<ChildProcess> {
  const configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-bench-listen-'));
  const child = spawn(
    process.execPath,
    [VP, 'listen', '--forward-to', forwardTo, '--events', 'session.started'],
    {
      env: { ...process.env, VP_API_KEY: key, VP_BASE_URL: base, XDG_CONFIG_HOME: configHome },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (/Ready!/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`vp listen exited with ${code}: ${out}`)));
  });
  child.stdout!.resume();
  return child;
}

/**
 * bench:listen (issue 44): events triggered at a steady rate, each to a registered endpoint and to
 * `vp listen` forwarding to a local server, on the same platform in the same run. Per event: from
 * its trigger's acceptance (the 201) to the endpoint's first attempt arriving, and to the local
 * server behind `vp listen` receiving it. Target: listen's p95 ≤ the endpoint's p95 + 50 ms.
 */
async function main(): Promise<void> {
  if (!fs.existsSync(VP))
    execFileSync('npm', ['run', '-s', 'build', '-w', 'sdk'], { cwd: ROOT, stdio: 'inherit' });
  const logger = createLogger('warn', 'bench');
  const platform = await startBenchPlatform('listen', logger);
  const endpoint = await arrivalsServer();
  const local = await arrivalsServer();
  let listen: ChildProcess | undefined;
  try {
    const { request, key, base } = platform;
    await request('POST', '/api/v2/developers/webhooks', key, {
      name: 'registered',
      url: endpoint.url,
      events: ['session.started'],
    });
    listen = await startListen(base, key, local.url);
    const accepted = new Map<string, number>();
    const trigger = async () => {
      const res = await request('POST', '/api/v2/developers/events/trigger', key, {
        type: 'session.started',
      });
      accepted.set(res.data.event.id as string, performance.now());
    };
    for (let i = 0; i < 20; i++) await trigger(); // warm-up
    await sleep(2_000);
    accepted.clear();
    const started = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < N; i++) {
      const due = started + (i * 1000) / RATE;
      await sleep(Math.max(0, due - performance.now()));
      pending.push(trigger());
    }
    await Promise.all(pending);
    const deadline = Date.now() + 60_000;
    const ids = [...accepted.keys()];
    while (ids.some((id) => !endpoint.arrivals.has(id) || !local.arrivals.has(id))) {
      if (Date.now() > deadline) throw new Error('some events did not arrive within 60 s');
      await sleep(100);
    }
    report(ids, accepted, endpoint.arrivals, local.arrivals);
  } finally {
    listen?.kill('SIGINT');
    await Promise.all([endpoint.close(), local.close()]);
    await platform.stop();
  }
}

function report(
  ids: string[],
  accepted: Map<string, number>,
  endpoint: Map<string, number>,
  local: Map<string, number>,
) {
  const toEndpoint = latencyStats(ids.map((id) => endpoint.get(id)! - accepted.get(id)!));
  const toListen = latencyStats(ids.map((id) => local.get(id)! - accepted.get(id)!));
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(
    `bench:listen: ${ids.length} events at ${RATE}/s, each to a registered endpoint and to vp listen`,
  );
  console.log('from the trigger accepted (201) to:        p50        p95        p99');
  for (const [name, s] of [
    ['the endpoint (first attempt)', toEndpoint],
    ['the local server behind vp listen', toListen],
  ] as const) {
    console.log(
      `  ${name.padEnd(38)} ${ms(s.p50).padStart(9)}  ${ms(s.p95).padStart(9)}  ${ms(s.p99).padStart(9)}`,
    );
  }
  const above = toListen.p95 - toEndpoint.p95;
  console.log(
    `vp listen p95 above the endpoint's: ${ms(above)} (target ≤ 50 ms: ${above <= 50 ? 'met' : 'NOT met'})`,
  );
}

runBench(main);
