import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signDevToken } from '../src/auth/dev-idp';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { contactNumber } from '../test/support/campaigns';
import { completeManifest } from '../test/support/personas';
import { freePort } from '../test/support/resilience';
import { startTwilioDouble, type TwilioDouble } from '../test/support/twilio-double';
import { reportHops } from './campaign-hops';
import { BENCH_ADMIN_TOKEN, benchEnterprise, benchRequester, benchWorkspace, runBench } from './support';

/**
 * bench:campaigns — an outbound campaign (docs/campaigns.md) against the platform as `npm start`
 * runs it (API and worker in one child process), a Temporal dev server, PostgreSQL and the Twilio
 * double as the carrier: BENCH_CONTACTS contacts (500) at BENCH_CONCURRENCY (20), each call answered
 * at once and hung up by the callee after BENCH_CALL_MS (2 000 ms). It prints the wall time from the
 * create to the campaign's end, the ideal (contacts × call time ÷ concurrency), the ratio (target
 * ≥ 90 %), the floor measured in the same run (the carrier's own call times, summed and divided by
 * the concurrency), and the orchestration's own cost per call: the time a call slot is held beyond
 * the carrier's call (its claim, the child workflow's start, placing, the status callbacks, the
 * outcome's record), in ms.
 */

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const CALL_MS = Number(process.env.BENCH_CALL_MS ?? 2000);
const progress = (what: string) => process.stderr.write(`bench:campaigns: ${what}\n`);

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const workspace = benchWorkspace('campaigns');
  const double = await startTwilioDouble();
  double.script({ outcome: 'answer', ringMs: 0, talkMs: CALL_MS, media: 'none' });
  const apiPort = await freePort();
  const base = `http://127.0.0.1:${apiPort}`;
  const logPath = process.env.BENCH_PLATFORM_LOG ?? path.join(os.tmpdir(), 'bench-campaigns-platform.log');
  progress(`the platform logs to ${logPath}`);
  const platform = fork(path.join(__dirname, 'api-server.ts'), [], {
    execArgv: [
      '--max-semi-space-size=32', // the platform's runtime flags (package.json's start, the Dockerfile)
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: workspace.databaseUrl,
      DATABASE_POOL_MAX: '20',
      TEMPORAL_ADDRESS: temporal.address,
      DATA_DIR: workspace.dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMITS: 'off',
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      TWILIO_API_BASE_URL: double.baseUrl,
      PUBLIC_URL: base,
      BENCH_API_PORT: String(apiPort),
      BENCH_WORKER: '1',
    },
    stdio: ['ignore', fs.openSync(logPath, 'w'), 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    platform.once('message', () => resolve());
    platform.once('exit', (code) => reject(new Error(`bench platform exited with ${code}`)));
  });
  try {
    const campaignId = await measure(base, workspace.dataDir, double);
    await reportHops({
      temporalAddress: temporal.address,
      databaseUrl: workspace.databaseUrl,
      campaignId,
      double,
    });
  } finally {
    platform.kill('SIGTERM');
    await double.close();
    await workspace.drop();
    await temporal.stop();
  }
}

async function measure(base: string, dataDir: string, double: TwilioDouble): Promise<string> {
  const token = await signDevToken(dataDir, 'bench@example.com');
  await benchEnterprise(base, token);
  const request = benchRequester(base);
  const key = (
    await request('POST', '/api/v1/developers/keys', token, { name: 'bench', environment: 'test' })
  ).key.fullKey;
  const persona = (
    await request('POST', '/api/v1/developers/personas', token, {
      manifest: completeManifest('bench-campaigns'),
    })
  ).persona;
  const number = (
    await request('POST', '/api/v2/developers/phone-numbers', key, {
      number: '+14155550100',
      provider: 'twilio',
      personaId: persona.id,
      credentials: { accountSid: double.accountSid, authToken: double.authToken },
    })
  ).data;
  progress(`${CONTACTS} contacts, concurrency ${CONCURRENCY}, calls of ${CALL_MS} ms`);
  const started = performance.now();
  const createdAt = Date.now();
  const cpuBefore = os.cpus();
  const campaign = (
    await request('POST', '/api/v2/developers/campaigns', key, {
      name: 'bench',
      phoneNumberId: number.id,
      personaId: persona.id,
      contacts: Array.from({ length: CONTACTS }, (_, i) => ({ to: contactNumber(i) })),
      concurrency: CONCURRENCY,
      callingHours: { start: '00:00', end: '23:59', timezone: noonZone() },
      retry: { onBusy: false, onNoAnswer: false, onVoicemail: false, maxAttempts: 1, delayMinutes: 0 },
    })
  ).data;
  let ended = campaign;
  while (!ended.endedAt) {
    await new Promise((r) => setTimeout(r, 100));
    ended = (await request('GET', `/api/v2/developers/campaigns/${campaign.id}`, key)).data;
  }
  const wallMs = performance.now() - started;
  report(wallMs, double, ended, createdAt);
  reportCpu(cpuBefore, os.cpus());
  return campaign.id;
}

/**
 * How busy the machine's cores were during the campaign (every process: Temporal, PostgreSQL, the
 * platform and this bench with its carrier double): near 100 % the hops queue for CPU, so the gap is
 * the machine's, not a wait in the orchestration.
 */
function reportCpu(before: os.CpuInfo[], after: os.CpuInfo[]): void {
  const sum = (cpus: os.CpuInfo[], busyOnly: boolean) =>
    cpus.reduce((n, c) => {
      const t = c.times;
      return n + t.user + t.nice + t.sys + t.irq + (busyOnly ? 0 : t.idle);
    }, 0);
  const busy = sum(after, true) - sum(before, true);
  const total = sum(after, false) - sum(before, false);
  console.log(
    `CPU busy during the campaign                   ${((busy / total) * 100).toFixed(1).padStart(7)} % of ${after.length} cores`,
  );
}

/** A time zone where it is about noon now: the window's closed minute (23:59) is far off. */
function noonZone(): string {
  const east = 12 - new Date().getUTCHours(); // UTC+east is at noon; Etc/GMT-N is UTC+N
  return east === 0 ? 'Etc/GMT' : `Etc/GMT${east > 0 ? '-' : '+'}${Math.abs(east)}`;
}

function report(
  wallMs: number,
  double: TwilioDouble,
  ended: { outcomes: Record<string, number> },
  createdAt: number,
): void {
  const calls = double.calls.filter((c) => c.endedAt);
  const carrierMs = calls.reduce((sum, c) => sum + (c.endedAt! - c.createdAt), 0);
  const idealMs = (CONTACTS * CALL_MS) / CONCURRENCY;
  const floorMs = carrierMs / CONCURRENCY;
  const ratio = idealMs / wallMs;
  const perCallMs = (wallMs * CONCURRENCY) / CONTACTS - carrierMs / calls.length;
  const s = (ms: number) => `${(ms / 1000).toFixed(2).padStart(8)} s`;
  console.log(`\nbench:campaigns: ${CONTACTS} contacts, concurrency ${CONCURRENCY}, calls of ${CALL_MS} ms`);
  console.log(`calls placed ${calls.length}, outcomes ${JSON.stringify(ended.outcomes)}`);
  console.log(`wall time (create → campaign ended)          ${s(wallMs)}`);
  console.log(`ideal: contacts × call time ÷ concurrency     ${s(idealMs)}`);
  console.log(`floor: the carrier's call times ÷ concurrency ${s(floorMs)}`);
  console.log(
    `ideal ÷ wall                                   ${(ratio * 100).toFixed(1).padStart(7)} %   target ≥ 90 %: ${ratio >= 0.9 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `floor ÷ wall                                   ${((floorMs / wallMs) * 100).toFixed(1).padStart(7)} %`,
  );
  console.log(
    `orchestration's own cost per call              ${perCallMs.toFixed(1).padStart(8)} ms (a call slot held beyond the carrier's call)`,
  );
  reportSlots(calls, wallMs, createdAt);
  if (calls.length !== CONTACTS) throw new Error(`${calls.length} calls placed for ${CONTACTS} contacts`);
}

/**
 * Where a slot's orchestration goes: the start (the campaign created → its first call at the
 * carrier), the steady state (the k-th call's end at the carrier → the (k + concurrency)-th call's
 * creation there: the slot it freed taken again), and the end (the last call's end → the campaign
 * seen ended, which includes this bench's 100 ms polling).
 */
function reportSlots(calls: TwilioDouble['calls'], wallMs: number, createdAt: number): void {
  const ends = calls.map((c) => c.endedAt!).sort((a, b) => a - b);
  const starts = calls.map((c) => c.createdAt).sort((a, b) => a - b);
  const gaps = ends.slice(0, ends.length - CONCURRENCY).map((end, k) => starts[k + CONCURRENCY]! - end);
  const sorted = [...gaps].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  console.log(
    `  start: created → first call at the carrier   ${(starts[0]! - createdAt).toFixed(0).padStart(8)} ms`,
  );
  const mean = gaps.reduce((n, g) => n + g, 0) / Math.max(1, gaps.length);
  console.log(
    `  a freed slot taken again (carrier end → next call) mean ${mean.toFixed(0)} ms; p50 ${at(0.5).toFixed(0)}, p90 ${at(0.9).toFixed(0)}, p95 ${at(0.95).toFixed(0)}, p99 ${at(0.99).toFixed(0)}, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms`,
  );
  const long = gaps.flatMap((g, k) =>
    g > 400 ? [`${((ends[k]! - createdAt) / 1000).toFixed(1)}s:${g.toFixed(0)}`] : [],
  );
  console.log(`  gaps over 400 ms (when the slot was freed, since the create: the gap): ${long.join(' ')}`);
  console.log(
    `  end: last call's end → campaign seen ended   ${(createdAt + wallMs - ends.at(-1)!).toFixed(0).padStart(8)} ms`,
  );
}

runBench(main);
