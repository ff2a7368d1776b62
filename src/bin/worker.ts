import { buildContext, onShutdownSignal, resolveDependencies, startWorker } from '../app/runtime';
import { loadConfigOrExit } from './config';

/** Production worker process: start as many as needed; all poll the same task queue. */
async function main(): Promise<void> {
  const { config, logger } = loadConfigOrExit('worker');
  const deps = await resolveDependencies(config, logger, false);
  const ctx = await buildContext(config, logger, deps, { migrate: false, registerSearchAttributes: false });
  const worker = await startWorker(ctx, deps.temporalAddress);
  logger.info({ taskQueue: config.temporal.taskQueue, address: deps.temporalAddress }, 'worker polling');
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
