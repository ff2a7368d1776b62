import os from 'node:os';
import { createApp } from '../src/app/app';
import { buildContext, closeServer, listen } from '../src/app/runtime';
import { signDevToken } from '../src/auth/dev-idp';
import { loadConfig } from '../src/config/env';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { benchWorkspace, latencyStats, runBench } from './support';

/**
 * bench:voices — POST /api/v1/developers/voices/preview on the real app (console auth, eSpeak NG in
 * worker threads, MP3 encoding, the preview cache): the first preview after start, then with a warm
 * pool the latency of uncached (distinct texts) and cached 60-character previews, GET /healthz p99
 * idle and while 8 previews run at once, and the size of a 4-second preview's data URL.
 */

const PREVIEWS = Number(process.env.BENCH_PREVIEWS ?? 60);
const HEALTH_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENT = 8;
const VOICE = 'espeak-en-us-aria';

const stats = latencyStats;
const ms = (n: number) => `${n.toFixed(1)} ms`;

/** A distinct sentence of exactly 60 characters. */
function sentence(i: number): string {
  const s = `Your order number ${1000 + i} is ready for pickup at the front desk.`;
  return s.length >= 60 ? `${s.slice(0, 59)}.` : s.padEnd(60, '.');
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const workspace = benchWorkspace('voices');
  const config = loadConfig({
    NODE_ENV: 'development',
    DATABASE_URL: workspace.databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: workspace.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
    ...(process.env.VOICE_WORKERS ? { VOICE_WORKERS: process.env.VOICE_WORKERS } : {}),
  });
  const ctx = await buildContext(
    config,
    logger,
    { databaseUrl: workspace.databaseUrl, poolMax: 10, temporalAddress: temporal.address },
    { migrate: true, registerSearchAttributes: false },
  );
  const token = await signDevToken(workspace.dataDir, 'bench-voices@example.com');

  // "start": the app is created (which starts the speech threads) and listens; the first preview follows at once
  const started = performance.now();
  const { app } = createApp(ctx);
  const server = await listen(app, '127.0.0.1', 0);
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const preview = async (text: string, voice = VOICE) => {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/developers/voices/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ voice_id: voice, text }),
    });
    const json = (await res.json()) as { preview: { audioUrl: string; duration: number } };
    if (res.status !== 200) throw new Error(`preview: ${res.status} ${JSON.stringify(json)}`);
    return { ms: performance.now() - t0, ...json.preview };
  };
  const healthz = async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}/healthz`);
    await res.arrayBuffer();
    return performance.now() - t0;
  };
  /** GET /healthz one after another for `seconds`: each answer's latency. */
  const sampleHealth = async (seconds: number) => {
    const times: number[] = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      times.push(await healthz());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return times;
  };

  try {
    const first = await preview('Hello! This is the very first preview after the API started.');
    const firstMs = performance.now() - started;
    await ctx.speech.warmed();
    const warmMs = performance.now() - started;

    const uncached: number[] = [];
    for (let i = 0; i < PREVIEWS; i++) uncached.push((await preview(sentence(i))).ms);
    const cached: number[] = [];
    for (let i = 0; i < PREVIEWS; i++) cached.push((await preview(sentence(i))).ms);

    // the same console authentication (ID token, account lookup) without audio: the floor under a cached preview
    const listing: number[] = [];
    for (let i = 0; i < PREVIEWS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/v1/developers/voices`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await res.arrayBuffer();
      listing.push(performance.now() - t0);
    }

    for (let i = 0; i < 50; i++) await healthz(); // connection and route warm-up
    const idle = await sampleHealth(HEALTH_SECONDS);
    let busy = true;
    let made = 0;
    let next = 10_000;
    const previewers = Array.from({ length: CONCURRENT }, async () => {
      while (busy) {
        await preview(sentence(next++));
        made += 1;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 200)); // every thread busy
    const loaded = await sampleHealth(HEALTH_SECONDS);
    busy = false;
    await Promise.all(previewers);

    // a sentence of about 4 seconds, and its data URL scaled to exactly 4 s
    const four = await preview(
      'Thanks for calling. Your appointment is confirmed for Tuesday at ten.',
      'espeak-en-us-grace',
    );
    const fourKb = four.audioUrl.length / 1024;
    const per4s = (fourKb / four.duration) * 4;

    const u = stats(uncached);
    const c = stats(cached);
    const hi = stats(idle);
    const hl = stats(loaded);
    console.log(
      `\nbench:voices — ${os.availableParallelism()} cores, ${ctx.speech.stats().pool.threads} speech threads, ${PREVIEWS} previews of 60 characters (${VOICE})\n`,
    );
    console.log(
      `first preview after start:   ${ms(firstMs)} (threads starting; the preview itself ${ms(first.ms)})   target ≤ 1000 ms`,
    );
    console.log(`pool warm (all voices, every thread): ${ms(warmMs)} after start`);
    console.log(
      `uncached preview:            p50 ${ms(u.p50)}  p95 ${ms(u.p95)}   target p95 ≤ 150 ms (2 cores, warm pool)`,
    );
    console.log(`cached preview:              p50 ${ms(c.p50)}  p95 ${ms(c.p95)}   target p95 ≤ 5 ms`);
    const l = stats(listing);
    console.log(
      `GET /voices (auth floor):    p50 ${ms(l.p50)}  p95 ${ms(l.p95)}   same ID-token check and account lookup, no audio`,
    );
    console.log(`GET /healthz idle:           p50 ${ms(hi.p50)}  p99 ${ms(hi.p99)}  (${hi.n} requests)`);
    console.log(
      `GET /healthz, ${CONCURRENT} previews running: p50 ${ms(hl.p50)}  p99 ${ms(hl.p99)}  (${hl.n} requests, ${made} previews made)   target p99 ≤ 2 × idle = ${ms(2 * hi.p99)}`,
    );
    console.log(
      `4-second preview:            ${fourKb.toFixed(1)} KB data URL for ${four.duration.toFixed(2)} s → ${per4s.toFixed(1)} KB per 4 s   target ≤ 32 KB`,
    );
  } finally {
    await closeServer(server);
    await ctx.close();
    await temporal.stop();
    await workspace.drop();
  }
}

runBench(main);
