import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { Client as PgClient } from 'pg';
import type { PlatformProcesses } from '../src/app/cluster-processes';
import type { TemporalCluster } from '../src/temporal/cluster/temporal-cluster';
import { TEMPORAL_SERVICES } from '../src/temporal/cluster/topology';

/**
 * CPU used per process kind of the cluster (bench:cluster's throughput and capacity phases): each
 * process's utime + stime from /proc/<pid>/stat, summed over its process group (every managed
 * process leads a group of its own) plus the CPU of the group leader's children that ended; every
 * PostgreSQL process (comm `postgres`: other databases included, and the CPU of backends that ended,
 * which the postmaster collects), split by the database each backend serves; and the bench process
 * itself (`process.cpuUsage()`: the load generator, the LLM double, the receivers).
 */

/** What /proc/<pid>/stat says of one process. */
interface ProcEntry {
  pid: number;
  comm: string;
  ppid: number;
  pgrp: number;
  /** utime + stime, in clock ticks. */
  ticks: number;
  /** cutime + cstime: children that ended and were waited for. */
  childTicks: number;
}

export type ComponentKind = 'platform' | 'temporal' | 'postgres' | 'bench';

/** One process kind: the leaders of its process groups (read when sampled: they may restart). */
export interface CpuComponent {
  name: string;
  kind: ComponentKind;
  leaders?: () => (number | undefined)[];
}

export interface CpuSample {
  at: number;
  /** CPU-ms so far per component; PostgreSQL also per database as `pg:<database>`. */
  ms: Record<string, number>;
  /** The whole machine (/proc/stat): busy and total CPU-ms over all cores. */
  machine: { busyMs: number; totalMs: number };
}

/** CPU used between two samples. */
export interface CpuUsed {
  seconds: number;
  ms: Record<string, number>;
  /** How many of the machine's cores were busy on average (anything, not only the cluster). */
  machineBusyCores: number;
}

export const CLOCK_TICKS = clockTicks();
const MS_PER_TICK = 1000 / CLOCK_TICKS;

function clockTicks(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

function readEntry(pid: number): ProcEntry | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const f = text.slice(close + 2).split(' ');
    return {
      pid,
      comm: text.slice(text.indexOf('(') + 1, close),
      ppid: Number(f[1]),
      pgrp: Number(f[2]),
      ticks: Number(f[11]) + Number(f[12]),
      childTicks: Number(f[13]) + Number(f[14]),
    };
  } catch {
    return undefined; // gone meanwhile
  }
}

function processTable(): ProcEntry[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readEntry(Number(name)))
    .filter((entry): entry is ProcEntry => entry !== undefined);
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** Ticks of the groups led by `leaders`: every live member, and the leaders' ended children. */
function groupTicks(table: ProcEntry[], leaders: (number | undefined)[]): number {
  const wanted = new Set(leaders.filter((pid): pid is number => pid !== undefined));
  return table.reduce((sum, p) => {
    if (!wanted.has(p.pgrp)) return sum;
    return sum + p.ticks + (p.pid === p.pgrp ? p.childTicks : 0);
  }, 0);
}

/**
 * Every PostgreSQL process: `pg:<database>` for a backend serving a client (its title, `postgres:
 * 15/main: <user> <database> <host>(<port>) <state>`), `pg:(server)` for the postmaster and the
 * server's own processes, `pg:(ended connections)` for backends that ended (the postmaster's children).
 */
function postgresTicks(table: ProcEntry[]): Record<string, number> {
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const out: Record<string, number> = {};
  const add = (key: string, ticks: number) => {
    out[key] = (out[key] ?? 0) + ticks;
  };
  for (const p of table) {
    if (p.comm !== 'postgres') continue;
    const postmaster = byPid.get(p.ppid)?.comm !== 'postgres';
    if (postmaster) add('pg:(ended connections)', p.childTicks);
    const backend = /^postgres: (?:\S+: )?\S+ (\S+) (?:\[local\]|\S+\(\d+\))/.exec(commandLine(p.pid));
    add(backend && !postmaster ? `pg:${backend[1]}` : 'pg:(server)', p.ticks);
  }
  return out;
}

function machineTicks(): { busy: number; total: number } {
  const fields = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal (guest is in user)
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

/** Reads every component's CPU so far (one pass over /proc). */
export function sampleCpu(components: CpuComponent[]): CpuSample {
  const table = processTable();
  const ms: Record<string, number> = {};
  for (const c of components) {
    if (c.kind === 'bench') {
      const { user, system } = process.cpuUsage();
      ms[c.name] = (user + system) / 1000;
    } else if (c.kind === 'postgres') {
      const byDatabase = postgresTicks(table);
      ms[c.name] = Object.values(byDatabase).reduce((a, b) => a + b, 0) * MS_PER_TICK;
      for (const [key, ticks] of Object.entries(byDatabase)) ms[key] = ticks * MS_PER_TICK;
    } else {
      ms[c.name] = groupTicks(table, c.leaders?.() ?? []) * MS_PER_TICK;
    }
  }
  const machine = machineTicks();
  return {
    at: performance.now(),
    ms,
    machine: { busyMs: machine.busy * MS_PER_TICK, totalMs: machine.total * MS_PER_TICK },
  };
}

export function cpuUsed(before: CpuSample, after: CpuSample): CpuUsed {
  const keys = new Set([...Object.keys(before.ms), ...Object.keys(after.ms)]);
  const ms = Object.fromEntries(
    [...keys].map((key) => [key, Math.max(0, (after.ms[key] ?? 0) - (before.ms[key] ?? 0))]),
  );
  const seconds = (after.at - before.at) / 1000;
  const total = after.machine.totalMs - before.machine.totalMs;
  const busy = after.machine.busyMs - before.machine.busyMs;
  return { seconds, ms, machineBusyCores: total > 0 ? (busy / total) * os.cpus().length : 0 };
}

/**
 * The Temporal services' and the Web UI's processes: from the cluster's handles when given, else
 * this process's children (a phase that is not handed the cluster): `temporal-server … --service <s>`
 * and `temporal-ui-server`.
 */
function temporalLeaders(temporal?: TemporalCluster): Record<string, () => (number | undefined)[]> {
  if (temporal) {
    const services = TEMPORAL_SERVICES.map(
      (s) => [`temporal-${s}`, () => [temporal.services[s].pid]] as const,
    );
    return Object.fromEntries([...services, ['temporal-ui', () => [temporal.ui.pid]]]);
  }
  const children = (match: (command: string) => boolean) => () =>
    processTable()
      .filter((p) => p.ppid === process.pid && p.comm.startsWith('temporal-') && match(commandLine(p.pid)))
      .map((p) => p.pid);
  const services = TEMPORAL_SERVICES.map(
    (s) => [`temporal-${s}`, children((command) => command.endsWith(`--service ${s}`))] as const,
  );
  return Object.fromEntries([...services, ['temporal-ui', children((command) => /ui-server/.test(command))]]);
}

/** The cluster's process kinds: APIs, each worker pool, each Temporal service, PostgreSQL, the bench. */
export function clusterComponents(platform: PlatformProcesses, temporal?: TemporalCluster): CpuComponent[] {
  const pools = Object.entries(platform.workers).map(([pool, processes]) => ({
    name: `worker-${pool}`,
    kind: 'platform' as const,
    leaders: () => processes.map((p) => p.pid),
  }));
  const services = Object.entries(temporalLeaders(temporal)).map(([name, leaders]) => ({
    name,
    kind: 'temporal' as const,
    leaders,
  }));
  return [
    { name: 'api', kind: 'platform', leaders: () => platform.apis.map((api) => api.process.pid) },
    ...pools,
    ...services,
    { name: 'postgres', kind: 'postgres' },
    { name: 'bench', kind: 'bench' },
  ];
}

/** The sum over the components of one kind. */
export function kindTotal(used: CpuUsed, components: CpuComponent[], kind: ComponentKind): number {
  return components.filter((c) => c.kind === kind).reduce((sum, c) => sum + (used.ms[c.name] ?? 0), 0);
}

/** Connections to each database (pg_stat_activity), all and active, polled; the peak of each is kept. */
export function connectionWatch(databases: string[], everyMs = 1000) {
  const peak = Object.fromEntries(databases.map((d) => [d, { total: 0, active: 0 }]));
  const client = new PgClient({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    const { rows } = await client.query<{ datname: string; total: string; active: string }>(
      `select datname, count(*) as total, count(*) filter (where state = 'active') as active
         from pg_stat_activity where datname = any($1) group by datname`,
      [databases],
    );
    for (const row of rows) {
      const p = peak[row.datname]!;
      p.total = Math.max(p.total, Number(row.total));
      p.active = Math.max(p.active, Number(row.active));
    }
  };
  return {
    peak,
    async start() {
      await client.connect();
      await poll();
      timer = setInterval(() => void poll().catch(() => undefined), everyMs);
    },
    async stop() {
      clearInterval(timer);
      await poll().catch(() => undefined);
      await client.end();
    },
  };
}

/**
 * Waits until the platform's processes are quiet: a fresh API speaks every built-in voice's sample
 * once after it starts (the speech engines' warm-up, about a core for several seconds), which no
 * window should count. Quiet: under `quietMsPerS` CPU-ms a second, summed over the platform's
 * processes, `seconds` seconds in a row; gives up after `maxSeconds`. Answers how long it waited.
 */
export async function settle(
  components: CpuComponent[],
  { quietMsPerS = 150, seconds = 2, maxSeconds = 60 } = {},
): Promise<number> {
  const t0 = performance.now();
  let previous = sampleCpu(components);
  let quiet = 0;
  while (quiet < seconds && performance.now() - t0 < maxSeconds * 1000) {
    await new Promise((r) => setTimeout(r, 1000));
    const next = sampleCpu(components);
    const used = cpuUsed(previous, next);
    previous = next;
    quiet = kindTotal(used, components, 'platform') / used.seconds < quietMsPerS ? quiet + 1 : 0;
  }
  return (performance.now() - t0) / 1000;
}
