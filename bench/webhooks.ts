import http from 'node:http';
import os from 'node:os';
import { Account } from '../src/accounts/account.entity';
import { buildContext, startWorker } from '../src/app/runtime';
import type { PlatformAuth } from '../src/auth/platform-auth';
import { loadConfig } from '../src/config/env';
import { emitEvent } from '../src/events/emit';
import { createLogger } from '../src/logging/logger';
import { startTemporalDevServer } from '../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { createWebhook } from '../src/webhooks/webhooks.service';
import type { systemPingWorkflow } from '../workflows';
import { benchWorkspace, percentile, runBench } from './support';

const N = Number(process.env.BENCH_EVENTS ?? 400);
const M = Number(process.env.BENCH_WEBHOOKS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 15);

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const workspace = benchWorkspace('wh');
  const { dataDir } = workspace;
  const dbUrl = new URL(workspace.databaseUrl);

  // the receiver: answers 200 at once and records when each event arrived
  const arrivals = new Map<string, number[]>();
  let received = 0;
  let onReceive: (() => void) | undefined;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['x-service-event-id'] as string;
      const list = arrivals.get(id) ?? [];
      list.push(performance.now());
      arrivals.set(id, list);
      received++;
      res.end('ok');
      onReceive?.();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

  const config = loadConfig({
    NODE_ENV: 'development',
    DATABASE_URL: dbUrl.toString(),
    DATABASE_POOL_MAX: '20',
    TEMPORAL_ADDRESS: temporal.address,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  });
  const ctx = await buildContext(
    config,
    logger,
    { databaseUrl: dbUrl.toString(), poolMax: 20, temporalAddress: temporal.address },
    { migrate: true, registerSearchAttributes: false },
  );
  const worker = await startWorker(ctx, temporal.address);
  const waitForReceived = (count: number) =>
    new Promise<void>((resolve) => {
      if (received >= count) return resolve();
      onReceive = () => {
        if (received >= count) {
          onReceive = undefined;
          resolve();
        }
      };
    });

  try {
    const em = ctx.orm.em.fork();
    const account = em.create(Account, { issuer: 'bench', subject: 'bench', plan: 'enterprise' });
    await em.flush();
    const auth: PlatformAuth = {
      accountId: account.id,
      environment: 'live',
      keyId: 'key_bench',
      scopes: [],
      plan: 'enterprise',
    } as unknown as PlatformAuth;
    for (let i = 0; i < M; i++) {
      await createWebhook(ctx, em.fork(), auth, {
        name: `bench ${i}`,
        url: receiverUrl,
        events: ['tool.called'],
      });
    }
    // the latency phase's own subscription: one delivery per event, so 20 events/s = 20 deliveries/s
    await createWebhook(ctx, em.fork(), auth, {
      name: 'latency',
      url: receiverUrl,
      events: ['session.started'],
    });
    const emit = async (count: number, type: 'tool.called' | 'session.started' = 'tool.called') => {
      const fork = ctx.orm.em.fork();
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        ids.push(
          emitEvent(fork, {
            accountId: account.id,
            environment: 'live',
            type,
            data: { sessionId: 'sess_bench', toolId: 'tool_bench', toolName: 'bench', arguments: { i } },
          }).event.id,
        );
      }
      await fork.flush();
      return { ids, committedAt: performance.now() };
    };

    // warm-up: worker caches, connections, the receiver's keep-alive sockets
    await emit(20);
    await waitForReceived(20 * M);

    // ceiling: N × M minimal one-activity workflows, started as fast as the client can; measured
    // before and after the deliveries (the dev server slows as its history grows) and averaged
    const total = N * M;
    const measureCeiling = async (round: number) => {
      const started = performance.now();
      const handles = [];
      for (let i = 0; i < total; i += 200) {
        const batch = Array.from({ length: Math.min(200, total - i) }, (_, j) =>
          ctx.temporal.workflow.start<typeof systemPingWorkflow>('systemPingWorkflow', {
            workflowId: `bench-ping-${round}-${i + j}-${Date.now()}`,
            taskQueue: config.temporal.taskQueues.deliveries,
            args: [{ requestedAt: new Date().toISOString() }],
          }),
        );
        handles.push(...(await Promise.all(batch)));
      }
      await Promise.all(handles.map((h) => h.result()));
      return total / ((performance.now() - started) / 1000);
    };
    const ceilingBefore = await measureCeiling(1);

    // throughput: N events to M webhooks, committed at once
    const before = received;
    const deliveryStart = performance.now();
    for (let i = 0; i < N; i += 200) await emit(Math.min(200, N - i));
    await waitForReceived(before + total);
    const deliverySeconds = (performance.now() - deliveryStart) / 1000;
    const throughput = total / deliverySeconds;
    const ceilingAfter = await measureCeiling(2);
    const ceiling = (ceilingBefore + ceilingAfter) / 2;

    // latency at a steady rate to one webhook: each delivery's first attempt, from the event's commit
    const latencies: number[] = [];
    const pending: { ids: string[]; committedAt: number }[] = [];
    const ticks = LATENCY_SECONDS * RATE;
    const steadyStart = performance.now();
    for (let i = 0; i < ticks; i++) {
      const due = steadyStart + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(await emit(1, 'session.started'));
    }
    await waitForReceived(before + total + ticks);
    for (const p of pending)
      for (const at of arrivals.get(p.ids[0]) ?? []) latencies.push(at - p.committedAt);
    latencies.sort((a, b) => a - b);

    const fmt = (n: number) => n.toFixed(0).padStart(6);
    console.log(
      `\nbench:webhooks — ${N} events × ${M} webhooks = ${total} deliveries, ${os.cpus().length} cores`,
    );
    console.log(
      `one-activity workflow (ceiling)   ${fmt(ceiling)} workflows/s  (before ${ceilingBefore.toFixed(0)}, after ${ceilingAfter.toFixed(0)})`,
    );
    console.log(
      `webhook deliveries                ${fmt(throughput)} deliveries/s (${deliverySeconds.toFixed(1)} s)`,
    );
    console.log(`ratio deliveries/ceiling: ${((throughput / ceiling) * 100).toFixed(1)}% (target >= 70%)`);
    console.log(
      `first-attempt latency at ${RATE} events/s to one webhook, ${ticks} events: p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms (target p95 <= 250 ms)`,
    );
  } finally {
    await worker.stop();
    await ctx.close();
    await temporal.stop();
    receiver.closeAllConnections();
    receiver.close();
    await workspace.drop();
  }
}

runBench(main);
