import { createApp } from '../app/app';
import {
  buildContext,
  closeServer,
  listen,
  onShutdownSignal,
  resolveDependencies,
  startWorker,
} from '../app/runtime';
import { createLogger, resolveLogFormat } from '../logging/logger';
import { loadConfigOrExit } from './config';

/** Development: API + worker in one process, with embedded dependencies when none are configured. */
async function main(): Promise<void> {
  const { config } = loadConfigOrExit('start');
  // in a terminal, readable lines instead of JSON (LOG_FORMAT forces either)
  const format = resolveLogFormat(config.logFormat, { prettyInTerminal: true });
  const logger = createLogger(config.logLevel, 'voice-platform-start', undefined, format);
  const deps = await resolveDependencies(config, logger, true);
  const ctx = await buildContext(config, logger, deps, { migrate: true, registerSearchAttributes: true });
  // embedded PGlite serves one connection: the dispatcher then polls instead of LISTENing
  const worker = await startWorker(ctx, deps.temporalAddress, { listen: deps.poolMax > 1 });
  const { app } = createApp(ctx);
  const server = await listen(app, config.host, config.port);

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const apiUrl = config.publicUrl ?? `http://localhost:${port}`;
  logger.info({ apiUrl, docs: `${apiUrl}/docs`, temporalUi: deps.temporalUiUrl }, 'voice platform started');
  process.stdout.write(
    [
      '',
      `  API             ${apiUrl}`,
      `  Docs            ${apiUrl}/docs`,
      `  Temporal Web UI ${deps.temporalUiUrl ?? '(external Temporal: see your cluster UI)'}`,
      `  Console token   npm run token -- you@example.com`,
      '',
      '',
    ].join('\n'),
  );

  onShutdownSignal(logger, async () => {
    await closeServer(server);
    await worker.stop();
    await ctx.close();
    await deps.stop();
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
