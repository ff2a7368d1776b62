import type { Logger } from 'pino';
import { clusterComponents, settle } from './cluster-cpu';
import {
  type ClusterTarget,
  ms,
  scrapeMetric,
  slowReceiver,
  startBenchPlatform,
  triggerEvents,
} from './cluster-rig';
import { latencyStats } from './support';

const TURNS = Number(process.env.BENCH_TURNS ?? 30);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000);

type Layout = 'pools' | 'shared';

/**
 * Phase "turns": a live session's REST turn timed alone (the floor of the same run), then while
 * BENCH_DELIVERIES webhook deliveries (2 000) are queued behind a receiver that takes 200 ms each;
 * with a task queue per pool, with the deliveries pool's worker at the lowest CPU priority (a pool
 * on machines of its own, as production runs it, on two shared cores), and with one shared queue.
 * Target: with pools, the turn's p95 under the flood ≤ 1.2 × its p95 alone.
 */
export async function turnsPhase(temporal: ClusterTarget, logger: Logger): Promise<void> {
  console.log(
    `turns: ${TURNS} REST turns alone, then with ${DELIVERIES} deliveries queued (receiver 200 ms)`,
  );
  const runs = [
    { label: 'pools', layout: 'pools' as Layout },
    { label: 'pools, deliveries niced', layout: 'pools' as Layout, niceness: { deliveries: 19 } },
    { label: 'shared', layout: 'shared' as Layout },
  ];
  for (const run of runs) {
    const r = await measureLayout(temporal, logger, run);
    const ratio = r.underFlood.p95 / r.alone.p95;
    const name = run.label.padEnd(24);
    console.log(`${name} turn alone          p50 ${ms(r.alone.p50)}   p95 ${ms(r.alone.p95)}`);
    console.log(`${name} turn, flood queued  p50 ${ms(r.underFlood.p50)}   p95 ${ms(r.underFlood.p95)}`);
    console.log(
      `${name} p95 ratio ${ratio.toFixed(2)}× (target with pools ≤ 1.20×); deliveries still queued after the turns: ${r.backlog}; delivered by then: ${r.delivered}`,
    );
  }
}

async function measureLayout(
  temporal: ClusterTarget,
  logger: Logger,
  run: { label: string; layout: Layout; niceness?: { deliveries: number } },
) {
  const label = run.label.replace(/[^a-z]+/g, '_');
  const bench = await startBenchPlatform({
    label,
    logger,
    temporal,
    layout: run.layout,
    niceness: run.niceness,
  });
  const receiver = await slowReceiver(200);
  try {
    const [api, other] = bench.apis as [string, string];
    const session = await bench.v2(api, 'POST', '/sessions', { personaId: bench.personaId, userId: 'bench' });
    const sessionId = session.body.data.id as string;
    const timeTurns = async (text: string) => {
      const times: number[] = [];
      for (let i = 0; i < TURNS + 3; i++) {
        const t0 = performance.now();
        const res = await bench.v2(i % 2 ? api : other, 'POST', `/sessions/${sessionId}/turns`, {
          text: `${text} ${i}`,
        });
        if (res.status !== 200) throw new Error(`turn ${i}: ${res.status} ${JSON.stringify(res.body)}`);
        if (i >= 3) times.push(performance.now() - t0);
      }
      return latencyStats(times);
    };
    await settle(clusterComponents(bench.platform)); // the fresh APIs' warm-up out of the floor
    const alone = await timeTurns('alone');
    await bench.v2(api, 'POST', '/webhooks', {
      name: 'flood',
      url: receiver.url,
      events: ['session.started'],
    });
    await triggerEvents(bench.v2, api, DELIVERIES);
    const underFlood = await timeTurns('flood');
    const backlog = await scrapeMetric(
      api,
      bench.platform.adminToken,
      'temporal_task_queue_backlog',
      (labels) => /pool="(deliveries|shared)"/.test(labels),
    );
    return { alone, underFlood, backlog, delivered: receiver.received() };
  } finally {
    await receiver.close();
    await bench.close();
  }
}
