import http from 'node:http';
import os from 'node:os';
import type { Logger } from 'pino';
import {
  type CpuComponent,
  type CpuUsed,
  clusterComponents,
  cpuUsed,
  kindTotal,
  sampleCpu,
  settle,
} from './cluster-cpu';
import { type BenchPlatform, type ClusterTarget, startBenchPlatform, triggerEvents } from './cluster-rig';

const EVENTS = Number(process.env.BENCH_THROUGHPUT_EVENTS ?? 1000);
const WORKER_COUNTS = (process.env.BENCH_THROUGHPUT_WORKERS ?? '1,2,3').split(',').map(Number);
const LANES = Number(process.env.BENCH_THROUGHPUT_LANES ?? 20);
const TIMEOUT_MS = Number(process.env.BENCH_THROUGHPUT_TIMEOUT_S ?? Math.max(180, EVENTS / 2)) * 1000;
/** A further worker that adds less than this to the rate: the curve has flattened. */
const FLAT_GAIN = 1.15;
/** Deliveries before the timed ones, on each fresh platform. */
const WARMUP = Number(process.env.BENCH_THROUGHPUT_WARMUP ?? 50);

/** A webhook receiver that answers 200 at once and records when each request arrived, and its `webhook-id`. */
export async function fastReceiver() {
  const arrivals: number[] = [];
  const ids = new Set<string>();
  let waiter: { count: number; resolve: () => void } | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(performance.now());
      ids.add(String(req.headers['webhook-id']));
      res.writeHead(200).end('ok');
      if (waiter && arrivals.length >= waiter.count) waiter.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    arrivals,
    distinct: () => ids.size,
    /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
    waitFor(count: number, timeoutMs: number): Promise<void> {
      if (arrivals.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          reject(
            new Error(`only ${arrivals.length} of ${count} deliveries arrived in ${timeoutMs / 1000} s`),
          );
        }, timeoutMs);
        waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            waiter = undefined;
            resolve();
          },
        };
      });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

type Receiver = Awaited<ReturnType<typeof fastReceiver>>;

interface RunResult {
  workers: number;
  /** ms from the first trigger: the last trigger acknowledged, the last delivery arrived. */
  ackedMs: number;
  doneMs: number;
  /** Deliveries per second: end to end, between the 10th and 90th percentile of arrivals, after the last ack. */
  endToEnd: number;
  steady: number;
  afterAck: number | undefined;
  duplicates: number;
  used: CpuUsed;
  components: CpuComponent[];
}

/**
 * Phase "throughput": webhook deliveries per second with 1, 2 and 3 worker processes in the
 * deliveries pool (BENCH_THROUGHPUT_WORKERS), a fresh platform for each (the other pools one worker
 * each). A webhook to a receiver that answers 200 at once; BENCH_THROUGHPUT_EVENTS `session.started`
 * events (1 000) triggered as fast as the two APIs take them (BENCH_THROUGHPUT_LANES at a time, 20),
 * after BENCH_THROUGHPUT_WARMUP (50) untimed; timed from the first trigger until every delivery
 * arrived, with the CPU each process kind used meanwhile.
 */
export async function throughputPhase(target: ClusterTarget, logger: Logger): Promise<void> {
  console.log(
    `throughput: ${EVENTS} events, ${LANES} triggers at a time over both APIs, receiver answers 200 at once; ${os.cpus().length} cores`,
  );
  const results: RunResult[] = [];
  for (const workers of WORKER_COUNTS) {
    const result = await measureDeliveries(target, logger, workers);
    results.push(result);
    printRun(result);
  }
  printCurve(results);
}

async function measureDeliveries(target: ClusterTarget, logger: Logger, workers: number): Promise<RunResult> {
  const bench = await startBenchPlatform({
    label: `throughput${workers}`,
    logger,
    temporal: target,
    workersPerPool: { deliveries: workers },
  });
  const receiver = await fastReceiver();
  try {
    const hook = await bench.v2(bench.apis[0]!, 'POST', '/webhooks', {
      name: 'throughput',
      url: receiver.url,
      events: ['session.started'],
    });
    if (hook.status >= 300) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    const components: CpuComponent[] = clusterComponents(bench.platform);
    // the fresh processes' warm-up and first requests (JIT, connections, caches) out of the window
    await settle(components);
    if (WARMUP > 0) await deliver(bench, receiver, WARMUP);
    const before = sampleCpu(components);
    const timed = await deliver(bench, receiver, EVENTS);
    const used = cpuUsed(before, sampleCpu(components));
    return {
      workers,
      ...timed,
      duplicates: receiver.arrivals.length - receiver.distinct(),
      used,
      components,
    };
  } finally {
    await receiver.close();
    await bench.close();
  }
}

/** `count` events triggered over both APIs, timed until the receiver has had each one's delivery. */
async function deliver(bench: BenchPlatform, receiver: Receiver, count: number) {
  const already = receiver.arrivals.length;
  const t0 = performance.now();
  const half = Math.floor(count / 2);
  const lanes = Math.max(1, Math.floor(LANES / 2));
  await Promise.all([
    triggerEvents(bench.v2, bench.apis[0]!, half, lanes),
    triggerEvents(bench.v2, bench.apis[1]!, count - half, lanes),
  ]);
  const ackedMs = performance.now() - t0;
  await receiver.waitFor(already + count, TIMEOUT_MS);
  const at = receiver.arrivals
    .slice(already)
    .map((t) => t - t0)
    .sort((a, b) => a - b);
  const doneMs = at[count - 1]!;
  const [i10, i90] = [Math.floor(count * 0.1), Math.floor(count * 0.9)];
  const arrivedAfterAck = at.filter((t) => t > ackedMs).length;
  return {
    ackedMs,
    doneMs,
    endToEnd: count / (doneMs / 1000),
    steady: (i90 - i10) / ((at[i90]! - at[i10]!) / 1000),
    afterAck: arrivedAfterAck >= count * 0.1 ? arrivedAfterAck / ((doneMs - ackedMs) / 1000) : undefined,
  };
}

const rate = (n: number | undefined) => (n === undefined ? '    n/a' : `${n.toFixed(1).padStart(7)}/s`);
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** CPU-seconds by process kind over the run, in the order the note reads them. */
function cpuByKind(used: CpuUsed, components: CpuComponent[]) {
  const ms = used.ms;
  const otherWorkers = ['conversations', 'executions', 'background'].reduce(
    (sum, pool) => sum + (ms[`worker-${pool}`] ?? 0),
    0,
  );
  return {
    api: ms['api'] ?? 0,
    'deliveries workers': ms['worker-deliveries'] ?? 0,
    'other workers': otherWorkers,
    history: ms['temporal-history'] ?? 0,
    matching: ms['temporal-matching'] ?? 0,
    frontend: ms['temporal-frontend'] ?? 0,
    'temporal worker+ui': (ms['temporal-worker'] ?? 0) + (ms['temporal-ui'] ?? 0),
    postgres: ms['postgres'] ?? 0,
    bench: ms['bench'] ?? 0,
    counted:
      kindTotal(used, components, 'platform') +
      kindTotal(used, components, 'temporal') +
      kindTotal(used, components, 'postgres'),
  };
}

function printRun(r: RunResult): void {
  const name = `deliveries ×${r.workers}`.padEnd(15);
  console.log(
    `${name} ${EVENTS} delivered in ${sec(r.doneMs)}: end to end ${rate(r.endToEnd)}; once queued (10-90% of arrivals) ${rate(r.steady)}; after the last trigger's ack (${sec(r.ackedMs)}) ${rate(r.afterAck)}; duplicates ${r.duplicates}`,
  );
  const { counted, ...kinds } = cpuByKind(r.used, r.components);
  const cpu = Object.entries(kinds)
    .map(([kind, ms]) => `${kind} ${(ms / 1000).toFixed(1)}`)
    .join(', ');
  console.log(
    `${' '.repeat(15)} CPU s: ${cpu}; machine busy ${r.used.machineBusyCores.toFixed(2)} of ${os.cpus().length} cores; ${(counted / EVENTS).toFixed(1)} CPU-ms per delivery (platform + Temporal + PostgreSQL)`,
  );
}

/** The speedup over one worker, where adding one stops paying, and where the CPU went in the largest run. */
function printCurve(results: RunResult[]): void {
  const base = results[0];
  if (!base || results.length < 2) return;
  const speedups = results
    .slice(1)
    .map(
      (r) =>
        `×${r.workers} ${(r.endToEnd / base.endToEnd).toFixed(2)} (once queued ${(r.steady / base.steady).toFixed(2)})`,
    );
  console.log(`speedup vs ${base.workers} delivery worker, end to end: ${speedups.join(', ')}`);
  const flat = results.find((r, i) => i > 0 && r.endToEnd / results[i - 1]!.endToEnd < FLAT_GAIN);
  const last = results.at(-1)!;
  const { counted, bench: _bench, ...kinds } = cpuByKind(last.used, last.components);
  const shares = Object.entries(kinds)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${((100 * ms) / counted).toFixed(0)}%`)
    .join(', ');
  const busy = `${last.used.machineBusyCores.toFixed(2)} of ${os.cpus().length} cores busy`;
  const where = flat
    ? `flattens at ${flat.workers} delivery workers (less than ${Math.round((FLAT_GAIN - 1) * 100)}% more than with ${flat.workers - 1})`
    : `still rising at ${last.workers} delivery workers`;
  console.log(`${where}; with ${last.workers}: ${busy}; the cluster's CPU: ${shares}`);
  const perDelivery = counted / EVENTS;
  const ceiling = (os.cpus().length * 1000) / perDelivery;
  console.log(
    `the cluster spends ${perDelivery.toFixed(1)} CPU-ms a delivery: ${os.cpus().length} cores given wholly to it would deliver at most ${ceiling.toFixed(1)}/s, however many delivery workers`,
  );
}
