/**
 * Benchmark server (child process of bench/api.ts and others; with BENCH_WORKER=1 also the worker): the real app on one port and a bare Express
 * route on another, in the same process, against real PostgreSQL and a Temporal dev server.
 */
import http from 'node:http';
import express from 'express';
import { createApp } from '../src/app/app';
import { buildContext, listen, startWorker } from '../src/app/runtime';
import { loadConfig } from '../src/config/env';
import { ensureDatabaseExists } from '../src/db/orm';
import { createLogger } from '../src/logging/logger';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel, 'bench-api');
  const url = config.database.url!;
  await ensureDatabaseExists(url, logger);
  const ctx = await buildContext(
    config,
    logger,
    { databaseUrl: url, poolMax: config.database.poolMax, temporalAddress: config.temporal.address! },
    { migrate: true, registerSearchAttributes: false },
  );
  // bench:sessions runs the worker here too, as `npm start` does
  if (process.env.BENCH_WORKER === '1') await startWorker(ctx, config.temporal.address!);
  const { app, streams } = createApp(ctx);
  // steady state: the speech threads' one-time warm-up (started by the app) is over before measuring
  await ctx.speech.warmed();
  // BENCH_API_PORT: a port chosen beforehand (bench:phone's PUBLIC_URL names it); else any free one
  const api = await listen(app, '127.0.0.1', Number(process.env.BENCH_API_PORT ?? 0), streams);

  const bareApp = express();
  bareApp.get('/bare', (_req, res) => {
    res.json({ success: true, data: [], pagination: { total: 0, limit: 50, offset: 0 } });
  });
  // the baseline is Express as shipped: its own app on Node's stock server (the platform's server
  // builds requests with the app's prototypes, src/http/node-server.ts, which stock Express does not)
  const bare = http.createServer(bareApp);
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));

  const port = (s: http.Server) => (s.address() as { port: number }).port;
  process.send?.({ apiPort: port(api), barePort: port(bare) });
  process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
