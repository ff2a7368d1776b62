import { buildContext, onShutdownSignal, resolveDependencies, startWorker } from '../app/runtime';
import { loadConfigOrExit } from './config';

/**
 * Production worker process: it serves the pools `WORKER_TASK_QUEUES` names (all by default); start
 * as many of each as its workload needs (docs/operations.md "Worker pools").
 */
async function main(): Promise<void> {
  const { config, logger } = loadConfigOrExit('worker');
  const deps = await resolveDependencies(config, logger, false);
  const ctx = await buildContext(config, logger, deps, { migrate: false, registerSearchAttributes: false });
  const worker = await startWorker(ctx, deps.temporalAddress);
  const taskQueues = worker.workers.map((w) => w.taskQueue);
  logger.info({ taskQueues, address: deps.temporalAddress }, 'worker polling');
  onShutdownSignal(logger, async () => {
    await worker.stop();
    await ctx.close();
  });
  await worker.running;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
