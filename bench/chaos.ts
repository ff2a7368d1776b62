import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChaosFigures, type ChaosPlan, runChaos, startChaosRig } from '../test/support/chaos';
import { runBench } from './support';

/**
 * `npm run bench:chaos` (issue 26 item 7, "faults at volume"): CHAOS_EVENTS events through the API
 * (POST /events/trigger), fanned out to CHAOS_WEBHOOKS webhooks, while a worker process is SIGKILLed
 * and replaced every CHAOS_KILL_EVERY seconds until everything is delivered, the Temporal dev server
 * is restarted once and PostgreSQL refuses connections for CHAOS_OUTAGE_SECONDS (a TCP proxy in front
 * of it closes its port and cuts every connection: a network-level outage that needs no root).
 * Before that, a baseline of the same load without faults, in the same run on the same processes.
 * Exits 1 when an acknowledged event's delivery is lost, or a receiver got a copy that was not a
 * retry of its one delivery. test/hardening/chaos.test.ts asserts the same at a smaller size.
 */
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const EVENTS = env('CHAOS_EVENTS', 10_000);
const WEBHOOKS = env('CHAOS_WEBHOOKS', 5);
const WORKERS = env('CHAOS_WORKERS', 3);
const BASELINE_EVENTS = env('CHAOS_BASELINE_EVENTS', Math.max(50, Math.round(EVENTS / 5)));
const load = {
  rate: env('CHAOS_RATE', 100),
  concurrency: env('CHAOS_CONCURRENCY', 16),
  drainSeconds: env('CHAOS_DRAIN_SECONDS', 3_600),
};
const faults = {
  killEverySeconds: env('CHAOS_KILL_EVERY', 5),
  maxKills: Number.POSITIVE_INFINITY,
  temporalRestartAt: env('CHAOS_TEMPORAL_RESTART_AT', 20),
  outageAt: env('CHAOS_OUTAGE_AT', 35),
  outageSeconds: env('CHAOS_OUTAGE_SECONDS', 10),
};
const COMPILED_WORKER = path.resolve(__dirname, '../dist/src/bin/worker.js');

async function main(): Promise<void> {
  // knex reports each pooled connection the outage cuts with console.log: expected here
  const log = console.log;
  console.log = (...args: unknown[]) => {
    if (!String(args[0]).startsWith('Connection Error')) log(...args);
  };
  const compiled = fs.existsSync(COMPILED_WORKER);
  console.log(
    `bench:chaos — ${EVENTS} events × ${WEBHOOKS} webhooks, ${WORKERS} worker processes (${compiled ? 'compiled dist/' : 'source with tsx: each replacement bundles the workflows; `npm run build` first for production-like restarts'}), ${os.cpus().length} cores`,
  );
  const rig = await startChaosRig({
    label: 'chaos',
    webhooks: WEBHOOKS,
    workers: WORKERS,
    compiledWorkers: true,
  });
  try {
    const progress = (line: string) => console.log(line);
    console.log(`baseline: ${BASELINE_EVENTS} events, no faults`);
    const noFaults: ChaosPlan = {
      events: BASELINE_EVENTS,
      ...load,
      killEverySeconds: 0,
      maxKills: 0,
      outageSeconds: 0,
    };
    const baseline = await runChaos(rig, noFaults, progress);
    console.log(`chaos: ${EVENTS} events with faults`);
    const chaos = await runChaos(rig, { events: EVENTS, ...load, ...faults }, progress);
    report(baseline, chaos);
    const failed = chaos.lost > 0 || chaos.foreignReceipts > 0 || baseline.lost > 0;
    if (failed) throw new Error('deliveries were lost, or a receiver got a copy that was not a retry');
  } finally {
    await rig.close();
  }
}

function report(baseline: ChaosFigures, chaos: ChaosFigures): void {
  const row = (label: string, value: string | number) => console.log(`${label.padEnd(34)}${value}`);
  const rate = (f: ChaosFigures) =>
    `${f.deliveriesPerSecond.toFixed(1)} deliveries/s (${f.delivered} in ${f.seconds.toFixed(1)} s)`;
  console.log(
    `\nfaults: a worker SIGKILLed every ${faults.killEverySeconds} s until drained (${chaos.kills} kills, ${chaos.crashes} exits on their own${chaos.lastCrash ? `, last: ${chaos.lastCrash}` : ''}); Temporal restarted at ${faults.temporalRestartAt} s (down ${chaos.temporalDownSeconds.toFixed(1)} s); PostgreSQL refusing connections at ${faults.outageAt} s for ${faults.outageSeconds} s (${chaos.refusedAnswers} trigger answers not 201, retried)`,
  );
  row('acknowledged', `${chaos.acknowledged} events (201 from the API)`);
  row('expected deliveries', chaos.expected);
  row('delivered', `${chaos.delivered} (distinct webhook × event pairs received)`);
  row(
    'duplicates',
    `${chaos.duplicates} (${chaos.foreignReceipts === 0 ? 'all' : `NOT all: ${chaos.foreignReceipts} foreign copies;`} retries of their event's one delivery)`,
  );
  row('pending', `${chaos.pending}${chaos.drained ? '' : ` (not drained within ${load.drainSeconds} s)`}`);
  row('lost', `${chaos.lost} (must be 0)`);
  row('failed deliveries', chaos.failedDeliveries);
  row('unacknowledged events delivered', `${chaos.unacknowledgedDelivered} (committed, but answered 503)`);
  row('throughput with faults', rate(chaos));
  row(`baseline, ${baseline.acknowledged} events, no faults`, rate(baseline));
  row(
    'ratio faults/baseline',
    `${((chaos.deliveriesPerSecond / baseline.deliveriesPerSecond) * 100).toFixed(1)}% (producer paced at ${load.rate} events/s)`,
  );
}

runBench(main);
