import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import {
  dropTemporalDatabases,
  freshTemporalDatabases,
  LOCAL_POSTGRES,
} from '../src/temporal/cluster/schema';
import { startTemporalCluster } from '../src/temporal/cluster/temporal-cluster';
import { runClusterChaos } from '../test/support/cluster-chaos/run';
import { startDatabaseProxy } from '../test/support/db-proxy';
import type { startLlmDouble } from '../test/support/llm-double';
import { startBenchPlatform } from './cluster-rig';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/**
 * Phase "chaos" (issue 41 item 5), under a load the two cores carry with room to spare (about half
 * of them: throughput's ceiling is some 23 deliveries a second, a turn costs some 36 CPU-ms): a Temporal cluster and the platform of its own, both reaching
 * PostgreSQL only through a TCP proxy that can cut every connection; under load (BENCH_CHAOS_SESSIONS
 * live sessions with tool turns, BENCH_CHAOS_EVENTS_PER_S events to two webhooks,
 * BENCH_CHAOS_EXECUTIONS_PER_S executions), a worker of each pool, one API process and the history
 * service are SIGKILLed (each restarted at once, as a supervisor does) and then the database is cut
 * for BENCH_CHAOS_OUTAGE_S. Prints each fault's recovery time and the exactly-once tally; exits 1 on
 * a broken promise.
 */
export async function chaosPhase(ctx: { logger: Logger; llm: Awaited<ReturnType<typeof startLlmDouble>> }) {
  const { logger } = ctx;
  const load = {
    sessions: env('BENCH_CHAOS_SESSIONS', 6),
    thinkMs: env('BENCH_CHAOS_THINK_MS', 1000),
    eventsPerSecond: env('BENCH_CHAOS_EVENTS_PER_S', 3),
    executionsPerSecond: env('BENCH_CHAOS_EXECUTIONS_PER_S', 1),
  };
  const outageSeconds = env('BENCH_CHAOS_OUTAGE_S', 10);
  const proxy = await startDatabaseProxy('postgres://postgres@127.0.0.1:5432/postgres');
  const proxyPort = Number(new URL(proxy.url).port);
  const databases = freshTemporalDatabases('temporal_chaos');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-bench-chaos-'));
  const portBase = env('BENCH_CLUSTER_PORT_BASE', 19233) + 1000;
  const postgres = { ...LOCAL_POSTGRES, port: proxyPort };
  const temporal = await startTemporalCluster({
    logger,
    runDir,
    databases,
    postgres,
    portBase,
    uiPort: portBase - 153,
  });
  const target = { address: temporal.address, namespace: temporal.namespace, uiUrl: temporal.uiUrl };
  try {
    const bench = await startBenchPlatform({
      label: 'chaos',
      logger,
      temporal: target,
      databaseServerUrl: proxy.url,
    });
    try {
      console.log(
        `chaos: ${load.sessions} sessions (a turn every ${load.thinkMs} ms, every other one a tool turn), ${load.eventsPerSecond} events/s × 2 webhooks, ${load.executionsPerSecond} executions/s; a fault every ${env('BENCH_CHAOS_SETTLE_S', 15)} s`,
      );
      const { recoveries, tally } = await runClusterChaos({
        apis: bench.apis,
        token: bench.token,
        key: bench.key,
        targets: {
          apis: bench.platform.apis,
          workers: bench.platform.workers,
          history: temporal.services.history,
          database: proxy,
          adminToken: bench.platform.adminToken,
        },
        llm: ctx.llm,
        load,
        settleSeconds: env('BENCH_CHAOS_SETTLE_S', 15),
        outageSeconds,
        drainSeconds: 600,
        progress: (line) => console.log(line),
      });
      console.log(
        'fault                                   recovered after      turn  event  execution  readiness   process back after',
      );
      for (const r of recoveries) {
        const part = (n: number) => n.toFixed(1).padStart(6);
        const { turn, event, execution, readiness } = r.parts;
        console.log(
          `${r.fault.padEnd(40)} ${r.recoverySeconds.toFixed(1).padStart(6)} s (${r.from.padEnd(7)}) ${part(turn)} ${part(event)} ${part(execution)}    ${part(readiness)}   ${r.restartSeconds === undefined ? '' : `${r.restartSeconds.toFixed(1)} s`}`,
        );
      }
      console.log(
        `tally: ${tally.turnsAcknowledged} turns acknowledged (${tally.turnsInDoubt} in doubt), ${tally.eventsAcknowledged} events → ${tally.deliveries} deliveries (${tally.redeliveries} repeated), ${tally.executionsAcknowledged} executions; answers ${JSON.stringify(tally.answers)}`,
      );
      if (tally.violations.length > 0) {
        console.log(`BROKEN: ${tally.violations.length}\n  ${tally.violations.slice(0, 30).join('\n  ')}`);
        process.exitCode = 1;
      } else
        console.log('every acknowledged request completed exactly once; no 5xx but 503 with Retry-After');
    } finally {
      await bench.close();
    }
  } finally {
    await temporal.stop();
    await dropTemporalDatabases({ postgres: LOCAL_POSTGRES, databases }).catch(() => undefined);
    await proxy.close();
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}
