import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createApp } from '../app/app';
import {
  buildContext,
  closeServer,
  listen,
  onShutdownSignal,
  resolveDependencies,
  startWorker,
} from '../app/runtime';
import type { Config } from '../config/env';
import { consoleDir } from '../console-web/serve';
import { serveDemoMcp } from '../demo/demo-mcp-server';
import { createLogger, type Logger, resolveLogFormat } from '../logging/logger';
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
  buildConsoleIfMissing(logger);
  const { app, streams } = createApp(ctx);
  const server = await listen(app, config.host, config.port, streams);
  const demo = await startDemoMcp(config, logger);
  ctx.demoMcpUrl = demo?.url;

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const apiUrl = config.publicUrl ?? `http://localhost:${port}`;
  logger.info({ apiUrl, docs: `${apiUrl}/docs`, temporalUi: deps.temporalUiUrl }, 'voice platform started');
  process.stdout.write(
    [
      '',
      `  API             ${apiUrl}`,
      `  Console         ${apiUrl}/console`,
      `  Docs            ${apiUrl}/docs`,
      `  Temporal Web UI ${deps.temporalUiUrl ?? '(external Temporal: see your cluster UI)'}`,
      `  Demo MCP server ${demo?.url ?? '(off: DEMO_MCP=off, or its port was taken)'}`,
      `  Console token   npm run token -- you@example.com`,
      '',
      '',
    ].join('\n'),
  );

  onShutdownSignal(logger, async () => {
    await closeServer(server, streams);
    await demo?.close();
    await worker.stop();
    await ctx.close();
    await deps.stop();
  });
}

/** The demo shop's MCP server, for a first agent's first tool (DEMO_MCP=off leaves it out). */
async function startDemoMcp(config: Config, logger: Logger) {
  if (!config.demoMcp || config.isProduction) return undefined;
  try {
    return await serveDemoMcp({ host: '127.0.0.1', port: config.demoMcp.port });
  } catch (error) {
    logger.warn(
      { err: error, port: config.demoMcp.port },
      'the demo MCP server did not start (set DEMO_MCP_PORT)',
    );
    return undefined;
  }
}

/** The web console is built once (`npm run build:web`, about 10 s) when no build is there yet. */
function buildConsoleIfMissing(logger: Logger): void {
  if (fs.existsSync(path.join(consoleDir(), 'index.html'))) return;
  logger.info('building the web console (first start; `npm run build:web` rebuilds it)');
  const result = spawnSync('npm', ['run', '-s', 'build:web'], { stdio: 'inherit' });
  if (result.status !== 0) {
    logger.warn('the web console did not build: /console explains how to build it; the API runs without it');
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
