import { createApp } from '../app/app';
import { buildContext, closeServer, listen, onShutdownSignal, resolveDependencies } from '../app/runtime';
import { loadConfigOrExit } from './config';

/** Production API process: stateless, run as many as needed behind a load balancer. */
async function main(): Promise<void> {
  const { config, logger } = loadConfigOrExit('api');
  const deps = await resolveDependencies(config, logger, false);
  const ctx = await buildContext(config, logger, deps, { migrate: false, registerSearchAttributes: true });
  const { app, streams } = createApp(ctx);
  const server = await listen(app, config.host, config.port, streams);
  logger.info({ host: config.host, port: config.port }, 'api listening');
  onShutdownSignal(logger, async () => {
    await closeServer(server, streams);
    await ctx.close();
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
