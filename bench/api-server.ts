/**
 * Benchmark server (child process of bench/api.ts and others; with BENCH_WORKER=1 also the worker): the real app on one port and a bare Express
 * route on another, in the same process, against real PostgreSQL and a Temporal dev server.
 */
import http from 'node:http';
import express from 'express';
import { Pool } from 'pg';
import { createApp } from '../src/app/app';
import { buildContext, listen, startWorker } from '../src/app/runtime';
import { hashApiKey } from '../src/auth/key-material';
import { KEY_LOOKUP_SQL } from '../src/auth/platform-auth';
import { loadConfig } from '../src/config/env';
import { ensureDatabaseExists } from '../src/db/orm';
import { createLogger } from '../src/logging/logger';
import { SECRETS_LIST_SQL } from '../src/secrets/secrets.service';

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
  floorRoute(bareApp, url, config.database.poolMax);
  // the baseline is Express as shipped: its own app on Node's stock server (the platform's server
  // builds requests with the app's prototypes, src/http/node-server.ts, which stock Express does not)
  const bare = http.createServer(bareApp);
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));

  const port = (s: http.Server) => (s.address() as { port: number }).port;
  process.send?.({ apiPort: port(api), barePort: port(bare) });
  process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile
}

/**
 * GET /floor: what the authenticated read cannot do without: stock Express and the same two queries
 * (the key's lookup by its hash, then the page of secrets) through `pg`, as named prepared
 * statements on a pool of the platform's size; no validation, rate limit, scope, log or envelope
 * checks beyond the key being there and not revoked.
 */
function floorRoute(app: express.Express, databaseUrl: string, poolMax: number): void {
  const pool = new Pool({ connectionString: databaseUrl, max: poolMax });
  app.get('/floor', async (req, res) => {
    try {
      const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const found = await pool.query({ name: 'floor-key', text: KEY_LOOKUP_SQL, values: [hashApiKey(key)] });
      const row = found.rows[0] as
        | { account_id: string; environment: string; revoked_at: unknown }
        | undefined;
      if (!row || row.revoked_at) return void res.status(401).json({ success: false });
      const page = await pool.query({
        name: 'floor-list',
        text: SECRETS_LIST_SQL,
        values: [row.account_id, row.environment, 50, 0],
      });
      const total = Number(page.rows[0]?.total ?? 0);
      const data = page.rows.map((r) => ({ name: r.name, createdAt: r.created_at, updatedAt: r.updated_at }));
      res.json({ success: true, data, pagination: { total, limit: 50, offset: 0 } });
    } catch {
      res.status(500).end();
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
