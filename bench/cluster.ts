/**
 * bench:cluster (docs/performance.md "On the cluster", docs/capacity.md): the production topology of
 * `npm run cluster` (a Temporal cluster of four services on PostgreSQL, two API processes, worker
 * processes per pool from dist/), one Temporal cluster for the whole run and a fresh platform on it
 * for each phase. `npm run bench:cluster -- [phase …]` runs the phases named, else all of them:
 *
 * - turns: a live turn's p95 with 2 000 deliveries queued against alone (pools, pools with the
 *   deliveries pool at the lowest CPU priority, one shared queue); bench/cluster-turns.ts
 * - throughput: webhook deliveries per second with 1, 2 and 3 delivery workers; bench/cluster-throughput.ts
 * - chaos: every process kind killed under load, the database cut; recovery time per fault and the
 *   exactly-once tally; bench/cluster-chaos.ts
 * - capacity: CPU per conversation-second and per turn, per component; bench/cluster-capacity.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { createLogger } from '../src/logging/logger';
import {
  dropTemporalDatabases,
  freshTemporalDatabases,
  LOCAL_POSTGRES,
} from '../src/temporal/cluster/schema';
import { startTemporalCluster, type TemporalCluster } from '../src/temporal/cluster/temporal-cluster';
import { startLlmDouble } from '../test/support/llm-double';
import { capacityPhase } from './cluster-capacity';
import { chaosPhase } from './cluster-chaos';
import type { ClusterTarget } from './cluster-rig';
import { throughputPhase } from './cluster-throughput';
import { turnsPhase } from './cluster-turns';

type Phase = (ctx: {
  target: ClusterTarget;
  temporal: TemporalCluster;
  logger: Logger;
  llm: Awaited<ReturnType<typeof startLlmDouble>>;
}) => Promise<void>;

const PHASES: Record<string, Phase> = {
  turns: ({ target, logger }) => turnsPhase(target, logger),
  throughput: ({ target, logger }) => throughputPhase(target, logger),
  chaos: (ctx) => chaosPhase(ctx),
  capacity: (ctx) => capacityPhase(ctx),
};

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((phase) => !(phase in PHASES));
  if (unknown.length > 0)
    throw new Error(`unknown phase ${unknown.join(', ')}; phases: ${Object.keys(PHASES).join(', ')}`);
  const phases = asked.length > 0 ? asked : Object.keys(PHASES);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'bench-cluster');
  const llm = await startLlmDouble();
  Object.assign(process.env, {
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: 'bench-model',
    WEBHOOK_RETRY_DELAYS: '1,5,30',
    RATE_LIMITS: 'off', // thousands of triggers from one key
  });
  // the chaos phase runs on a cluster of its own (its database behind a proxy it can cut)
  const needsShared = phases.some((phase) => phase !== 'chaos');
  const databases = freshTemporalDatabases('temporal_bench');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-bench-cluster-'));
  const portBase = Number(process.env.BENCH_CLUSTER_PORT_BASE ?? 19233);
  const temporal = needsShared
    ? await startTemporalCluster({ logger, runDir, databases, portBase, uiPort: portBase - 153 })
    : undefined;
  try {
    const target = temporal
      ? { address: temporal.address, namespace: temporal.namespace, uiUrl: temporal.uiUrl }
      : { address: '', namespace: '', uiUrl: '' };
    console.log(`bench:cluster on ${os.cpus().length} cores: ${phases.join(', ')}`);
    for (const phase of phases) await PHASES[phase]!({ target, temporal: temporal!, logger, llm });
  } finally {
    await temporal?.stop();
    if (temporal) await dropTemporalDatabases({ postgres: LOCAL_POSTGRES, databases }).catch(() => undefined);
    fs.rmSync(runDir, { recursive: true, force: true });
    await llm.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
