import type { Logger } from 'pino';
import type { TemporalCluster } from '../src/temporal/cluster/temporal-cluster';
import {
  type CpuComponent,
  type CpuUsed,
  clusterComponents,
  connectionWatch,
  cpuUsed,
  kindTotal,
  sampleCpu,
  settle,
} from './cluster-cpu';
import { type BenchPlatform, type ClusterTarget, ms, startBenchPlatform } from './cluster-rig';
import { fastReceiver } from './cluster-throughput';
import { latencyStats } from './support';

const SESSIONS = Number(process.env.BENCH_CAPACITY_SESSIONS ?? 10);
const SECONDS = Number(process.env.BENCH_CAPACITY_SECONDS ?? 30);
const THINK_MS = Number(process.env.BENCH_CAPACITY_THINK_MS ?? 1000);
const EVENTS_PER_S = Number(process.env.BENCH_CAPACITY_EVENTS_PER_S ?? 10);
const IDLE_SECONDS = Number(process.env.BENCH_CAPACITY_IDLE_SECONDS ?? 10);
/** For the sizing line: a phone call's turn every this many seconds (docs/capacity.md). */
const CALL_TURN_EVERY_S = Number(process.env.BENCH_CAPACITY_CALL_TURN_S ?? 4.5);
const CALLS = 1000;
const EVENTS_TARGET = 100;

interface Window<T> {
  used: CpuUsed;
  result: T;
}

/**
 * Phase "capacity": the CPU each component of the cluster spends per turn, per conversation-second
 * and per webhook event. On a fresh platform, once its processes are quiet (the APIs' speech warm-up
 * done): an idle window (BENCH_CAPACITY_IDLE_SECONDS, 10) for the background (pollers,
 * housekeeping); BENCH_CAPACITY_SESSIONS sessions (10) each taking REST turns back to back with a
 * caller's pause (BENCH_CAPACITY_THINK_MS, 1 000 ms) for BENCH_CAPACITY_SECONDS (30); then, apart,
 * BENCH_CAPACITY_EVENTS_PER_S events a second (10) to one webhook for as long, until all are
 * delivered. Each window's CPU less the idle window's rate over its length.
 */
export async function capacityPhase(ctx: {
  target: ClusterTarget;
  temporal: TemporalCluster;
  logger: Logger;
}): Promise<void> {
  console.log(
    `capacity: idle ${IDLE_SECONDS} s; ${SESSIONS} sessions × ${SECONDS} s of turns (pause ${THINK_MS} ms); ${EVENTS_PER_S} events/s × ${SECONDS} s`,
  );
  const bench = await startBenchPlatform({ label: 'capacity', logger: ctx.logger, temporal: ctx.target });
  const receiver = await fastReceiver();
  const platformDb = new URL(bench.platform.databaseUrl).pathname.slice(1);
  const databases = {
    platform: platformDb,
    'Temporal persistence': ctx.temporal.databases.default,
    'Temporal visibility': ctx.temporal.databases.visibility,
  };
  const watch = connectionWatch(Object.values(databases));
  try {
    const components = clusterComponents(bench.platform, ctx.temporal);
    const sessionIds = await openSessions(bench);
    const settled = await settle(components);
    console.log(`settled after ${settled.toFixed(0)} s (the APIs' speech warm-up); windows follow`);
    await watch.start();
    const idle = await measure(components, () => sleep(IDLE_SECONDS * 1000));
    const turns = await measure(components, () => converse(bench, sessionIds));
    const hook = await bench.v2(bench.apis[0]!, 'POST', '/webhooks', {
      name: 'capacity',
      url: receiver.url,
      events: ['session.started'],
    });
    if (hook.status >= 300) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    const events = await measure(components, () => steadyEvents(bench, receiver));
    await watch.stop();
    const report = { components, idle, turns, events };
    printTable(report, databases);
    printWorkload(turns.result, events.result);
    console.log(
      `PostgreSQL connections, peak (all / active): ${Object.entries(databases)
        .map(([role, name]) => `${role} ${watch.peak[name]!.total} / ${watch.peak[name]!.active}`)
        .join(', ')}`,
    );
    printSizing(report);
  } finally {
    await watch.stop().catch(() => undefined);
    await receiver.close();
    await bench.close();
  }
}

const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));

async function measure<T>(components: CpuComponent[], work: () => Promise<T>): Promise<Window<T>> {
  const before = sampleCpu(components);
  const result = await work();
  return { used: cpuUsed(before, sampleCpu(components)), result };
}

/** SESSIONS sessions, each with one turn taken (its workflow's first tasks, out of the windows). */
async function openSessions(bench: BenchPlatform): Promise<string[]> {
  return Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      const api = bench.apis[i % 2]!;
      const res = await bench.v2(api, 'POST', '/sessions', {
        personaId: bench.personaId,
        userId: `caller-${i}`,
      });
      if (res.status >= 300) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
      const id = res.body.data.id as string;
      await turn(bench, api, id, 'hello');
      return id;
    }),
  );
}

async function turn(bench: BenchPlatform, api: string, sessionId: string, text: string): Promise<void> {
  const res = await bench.v2(api, 'POST', `/sessions/${sessionId}/turns`, { text });
  if (res.status !== 200) throw new Error(`turn: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Each session takes turns back to back, a caller's pause between them, for SECONDS; the APIs alternate. */
async function converse(bench: BenchPlatform, sessionIds: string[]) {
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  const times: number[] = [];
  await Promise.all(
    sessionIds.map(async (id, lane) => {
      for (let i = 0; performance.now() < end; i++) {
        const started = performance.now();
        await turn(bench, bench.apis[(lane + i) % 2]!, id, `turn ${i} of caller ${lane}`);
        times.push(performance.now() - started);
        if (performance.now() + THINK_MS < end) await sleep(THINK_MS);
        else break;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { turns: times.length, sessionSeconds: sessionIds.length * seconds, latency: latencyStats(times) };
}

/** EVENTS_PER_S triggers a second (open loop, alternating APIs) for SECONDS, then until all are delivered. */
async function steadyEvents(bench: BenchPlatform, receiver: Awaited<ReturnType<typeof fastReceiver>>) {
  const count = Math.round(EVENTS_PER_S * SECONDS);
  const already = receiver.arrivals.length;
  const t0 = performance.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = t0 + (i * 1000) / EVENTS_PER_S;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(
      bench.v2(bench.apis[i % 2]!, 'POST', '/events/trigger', { type: 'session.started' }).then((res) => {
        if (res.status >= 300) throw new Error(`trigger: ${res.status} ${JSON.stringify(res.body)}`);
      }),
    );
  }
  await Promise.all(sent);
  const lastSent = performance.now();
  await receiver.waitFor(already + count, 120_000);
  return { events: count, drainMs: performance.now() - lastSent };
}

interface Report {
  components: CpuComponent[];
  idle: Window<unknown>;
  turns: Window<Awaited<ReturnType<typeof converse>>>;
  events: Window<Awaited<ReturnType<typeof steadyEvents>>>;
}

/** A window's CPU-ms for `key` less what the idle window's rate gives over its length. */
function net(report: Report, window: Window<unknown>, key: (used: CpuUsed) => number): number {
  const idleRate = key(report.idle.used) / report.idle.used.seconds;
  return key(window.used) - idleRate * window.used.seconds;
}

/** The table's rows: each component, the totals by kind, PostgreSQL by database. */
function rows(report: Report, databases: Record<string, string>): [string, (used: CpuUsed) => number][] {
  const { components } = report;
  const one = (name: string) => (used: CpuUsed) => used.ms[name] ?? 0;
  const pgOthers = (used: CpuUsed) =>
    (used.ms['postgres'] ?? 0) -
    Object.values(databases).reduce((sum, d) => sum + (used.ms[`pg:${d}`] ?? 0), 0);
  const counted = (used: CpuUsed) =>
    kindTotal(used, components, 'platform') +
    kindTotal(used, components, 'temporal') +
    kindTotal(used, components, 'postgres');
  return [
    ...components
      .filter((c) => c.kind === 'platform' || c.kind === 'temporal')
      .map((c) => [c.name, one(c.name)]),
    ['platform (APIs + workers)', (used) => kindTotal(used, components, 'platform')],
    ['Temporal (services + UI)', (used) => kindTotal(used, components, 'temporal')],
    ['PostgreSQL (every process)', one('postgres')],
    ...Object.entries(databases).map(([role, d]): [string, (used: CpuUsed) => number] => [
      `  of which the ${role} database`,
      one(`pg:${d}`),
    ]),
    ['  of which server processes, ended, other dbs', pgOthers],
    ['all counted', counted],
    ['bench process (not counted)', one('bench')],
  ] as [string, (used: CpuUsed) => number][];
}

function printTable(report: Report, databases: Record<string, string>): void {
  const { turns, events, idle } = report;
  const fmt = (n: number) => n.toFixed(2).padStart(10);
  console.log(
    `${'component'.padEnd(46)} ${'idle ms/s'.padStart(10)} ${'ms/turn'.padStart(10)} ${'ms/conv-s'.padStart(10)} ${'ms/event'.padStart(10)}`,
  );
  for (const [name, key] of rows(report, databases)) {
    const perTurn = net(report, turns, key) / turns.result.turns;
    const perConvSecond = net(report, turns, key) / turns.result.sessionSeconds;
    const perEvent = net(report, events, key) / events.result.events;
    const idleRate = key(idle.used) / idle.used.seconds;
    console.log(`${name.padEnd(46)} ${fmt(idleRate)} ${fmt(perTurn)} ${fmt(perConvSecond)} ${fmt(perEvent)}`);
  }
  const busy = (w: Window<unknown>) => w.used.machineBusyCores.toFixed(2);
  console.log(
    `machine busy (cores): idle ${busy(idle)}, turns ${busy(turns)}, events ${busy(events)}; CPU-ms less the idle window's rate`,
  );
}

function printWorkload(
  turns: Awaited<ReturnType<typeof converse>>,
  events: Awaited<ReturnType<typeof steadyEvents>>,
): void {
  const { latency } = turns;
  console.log(
    `turns: ${turns.turns} in ${turns.sessionSeconds.toFixed(0)} session-seconds (one per ${(turns.sessionSeconds / turns.turns).toFixed(2)} s a session); turn p50 ${ms(latency.p50)}, p95 ${ms(latency.p95)}`,
  );
  console.log(
    `events: ${events.events}, all delivered ${(events.drainMs / 1000).toFixed(1)} s after the last trigger`,
  );
}

/** The arithmetic of docs/capacity.md with this run's figures: cores for 1 000 calls and 100 events/s. */
function printSizing(report: Report): void {
  const turnsPerS = CALLS / CALL_TURN_EVERY_S;
  const kinds = ['platform', 'temporal', 'postgres'] as const;
  const cores = kinds.map((kind) => {
    const key = (used: CpuUsed) => kindTotal(used, report.components, kind);
    const perTurn = net(report, report.turns, key) / report.turns.result.turns;
    const perEvent = net(report, report.events, key) / report.events.result.events;
    return `${kind} ${((perTurn * turnsPerS + perEvent * EVENTS_TARGET) / 1000).toFixed(1)}`;
  });
  console.log(
    `sizing: ${CALLS} calls (a turn every ${CALL_TURN_EVERY_S} s: ${turnsPerS.toFixed(0)} turns/s) + ${EVENTS_TARGET} events/s ≈ cores: ${cores.join(', ')} (this run's CPU per turn and per event; background not included)`,
  );
}
