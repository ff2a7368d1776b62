import fs from 'node:fs';
import path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { testSessionDriver } from '../agent-tests';
import { PostgresApiCallRecorder } from '../analytics/recorder';
import { createIdTokenVerifier } from '../auth/id-token';
import { KeyCache } from '../auth/key-cache';
import type { AppContext } from '../common/context';
import { ensurePrivateDir, ensurePrivateFile } from '../common/private-files';
import { type Config, DEFAULT_DATABASE_URL } from '../config/env';
import { outboundNotice } from '../config/outbound';
import { loadEncryptor } from '../crypto/encryption';
import { isPostgresReachable, startEmbeddedPostgres } from '../db/embedded-postgres';
import { ensureDatabaseExists, initOrm, runMigrations } from '../db/orm';
import { EventDispatcher } from '../events/dispatcher';
import { personaBaseProblems } from '../knowledge';
import type { Logger } from '../logging/logger';
import { McpConnectionPool } from '../mcp/mcp-pool';
import { personasNamingProvider } from '../personas';
import { providerReferenceProblems } from '../providers';
import { RateLimits } from '../ratelimit/rate-limits';
import { checkPersonaTools, checkSessionOwned } from '../sessions';
import { startProcessTelemetry } from '../telemetry/process-telemetry';
import { clientTracingInterceptors } from '../telemetry/temporal';
import { callSessionDriver } from '../telephony';
import { connectTemporalClient } from '../temporal/client';
import { adoptIfFirstVersion } from '../temporal/deployment';
import { startTemporalDevServer } from '../temporal/dev-server';
import { exportQueueMetrics, exportWorkerSlots, forgetWorkerSlots } from '../temporal/queue-metrics';
import { registerSearchAttributes } from '../temporal/register-search-attributes';
import { ensureHousekeepingSchedule } from '../temporal/schedules';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { queuesToServe } from '../temporal/task-queues';
import { createWorkerPools } from '../temporal/worker';
import { SpeechSynthesizer } from '../voices/speech';
import { entities } from './entities';
import { createOutboxHandlers } from './outbox-handlers';
import { providerVoiceAccess } from './provider-voices';
import { workerRegistry } from './worker-registry';

/** Where the service's dependencies are, once found or started. */
export interface Dependencies {
  databaseUrl: string;
  poolMax: number;
  temporalAddress: string;
  temporalUiUrl?: string;
  /** Stops whatever was started here (embedded PGlite, dev Temporal server). */
  stop(): Promise<void>;
}

/** The same server's maintenance database: reachable even before our database is created. */
function serverUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/** The Temporal address used by `npm run api` / `npm run worker` when TEMPORAL_ADDRESS is unset. */
const LOCAL_TEMPORAL_ADDRESS = '127.0.0.1:7233';

/**
 * Finds the database and Temporal. With `embedded` (development: `npm start`), a missing local
 * PostgreSQL is replaced by PGlite and an unset TEMPORAL_ADDRESS starts a Temporal dev server.
 */
export async function resolveDependencies(
  config: Config,
  logger: Logger,
  embedded: boolean,
): Promise<Dependencies> {
  ensurePrivateDir(config.dataDir);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch((error) => logger.warn({ err: error }, 'stop failed'));
  };
  try {
    let databaseUrl = config.database.url ?? DEFAULT_DATABASE_URL;
    let poolMax = config.database.poolMax;
    if (!config.database.url && embedded && !(await isPostgresReachable(serverUrl(DEFAULT_DATABASE_URL)))) {
      logger.warn('no PostgreSQL at 127.0.0.1:5432 and DATABASE_URL unset: serving an embedded PGlite');
      const pg = await startEmbeddedPostgres({ dataDir: path.join(config.dataDir, 'pglite'), logger });
      stops.push(() => pg.stop());
      databaseUrl = pg.url;
      poolMax = Math.min(poolMax, pg.maxConnections);
    } else if (!config.isProduction) {
      await ensureDatabaseExists(databaseUrl, logger);
    }

    let temporalAddress = config.temporal.address;
    let temporalUiUrl = config.temporal.uiUrl;
    if (!temporalAddress && embedded) {
      const dbFilename = path.join(config.dataDir, 'temporal.sqlite');
      const server = await startTemporalDevServer({
        logger,
        dbFilename,
        port: config.temporal.devPort,
        uiPort: config.temporal.devUiPort,
        namespace: config.temporal.namespace,
        searchAttributes: SEARCH_ATTRIBUTES,
      });
      stops.push(() => server.stop());
      // the store holds conversation text: its files are the owner's alone (the directory already is)
      for (const name of fs.readdirSync(config.dataDir)) {
        if (name.startsWith('temporal.sqlite')) ensurePrivateFile(path.join(config.dataDir, name));
      }
      temporalAddress = server.address;
      temporalUiUrl ??= server.uiUrl;
    }
    return {
      databaseUrl,
      poolMax,
      temporalAddress: temporalAddress ?? LOCAL_TEMPORAL_ADDRESS,
      temporalUiUrl,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Builds the shared context: ORM (optionally migrating), Temporal client, encryption, limits, auth. */
export async function buildContext(
  config: Config,
  logger: Logger,
  deps: Pick<Dependencies, 'databaseUrl' | 'poolMax' | 'temporalAddress' | 'temporalUiUrl'>,
  opts: { migrate: boolean; registerSearchAttributes: boolean },
): Promise<AppContext & { close(): Promise<void>; metricsPort?: number }> {
  const notice = outboundNotice(config.outbound);
  if (notice) logger.warn(notice);
  const orm = await initOrm({ url: deps.databaseUrl, poolMax: deps.poolMax, entities });
  const telemetry = await startProcessTelemetry(config.telemetry, logger);
  const { tracing } = telemetry;
  try {
    if (opts.migrate) await runMigrations(orm, logger, { lock: deps.poolMax > 1 });
    const temporal = await connectTemporalClient({
      address: deps.temporalAddress,
      namespace: config.temporal.namespace,
      interceptors: clientTracingInterceptors(tracing),
    });
    if (opts.registerSearchAttributes) {
      await registerSearchAttributes(
        temporal.connection as Connection,
        config.temporal.namespace,
        SEARCH_ATTRIBUTES,
        logger,
      );
    }
    const apiCalls = new PostgresApiCallRecorder(orm.em.getConnection().getKnex(), logger, {
      enabled: config.analytics.recording,
      intervalMs: config.analytics.flushIntervalMs,
    });
    const encryptor = loadEncryptor({
      ...config.encryption,
      dataDir: config.dataDir,
      isProduction: config.isProduction,
      logger,
    });
    const ctx: AppContext = {
      config,
      logger,
      orm,
      temporal,
      mcpConnections: new McpConnectionPool(),
      encryptor,
      rateLimits: new RateLimits(
        orm.em.getConnection().getKnex(),
        config.rateLimits.enabled,
        config.rateLimits.anonymousPerMinute,
      ),
      verifyIdToken: await createIdTokenVerifier(config),
      temporalUiUrl: deps.temporalUiUrl,
      temporalAddress: deps.temporalAddress,
      speech: new SpeechSynthesizer(config, logger, providerVoiceAccess(orm, encryptor, logger)),
      references: {
        session: checkSessionOwned,
        personaTools: checkPersonaTools,
        providers: providerReferenceProblems,
        providerUsers: personasNamingProvider,
        knowledgeBases: personaBaseProblems,
      },
      tracing,
      apiCalls,
      // embedded PGlite serves one connection: no LISTEN there, so no key cache either
      keyCache: new KeyCache({ logger, listenUrl: deps.poolMax > 1 ? deps.databaseUrl : undefined }),
    };
    apiCalls.start();
    return {
      ...ctx,
      metricsPort: telemetry.metricsPort,
      close: async () => {
        await ctx.apiCalls.close(); // the last counts, before the pool closes
        await ctx.keyCache.close();
        await ctx.mcpConnections.close();
        await ctx.speech.close();
        await temporal.connection.close().catch(() => undefined);
        await orm.close();
        await telemetry.close();
      },
    };
  } catch (error) {
    await orm.close();
    await telemetry.close();
    throw error;
  }
}

/**
 * A worker process's work: a Temporal worker for each pool it serves (`WORKER_TASK_QUEUES`, all by
 * default; docs/operations.md "Worker pools") and the event dispatcher (the outbox).
 */
export async function startWorker(
  ctx: AppContext,
  temporalAddress: string,
  opts: { listen?: boolean; dispatch?: boolean } = {},
) {
  const { temporal: t } = ctx.config;
  const deps = {
    config: ctx.config,
    logger: ctx.logger,
    orm: ctx.orm,
    encryptor: ctx.encryptor,
    mcpConnections: ctx.mcpConnections,
    testSessions: testSessionDriver(ctx),
    callSessions: callSessionDriver(ctx),
  };
  const { workers, connection } = await createWorkerPools({
    pools: queuesToServe({ layout: t.queueLayout, taskQueues: t.taskQueues, workloads: t.workloads }).map(
      ({ pool, taskQueue }) => ({ workload: pool, taskQueue, registry: workerRegistry(deps, pool) }),
    ),
    logger: ctx.logger,
    address: temporalAddress,
    namespace: t.namespace,
    tracing: ctx.tracing,
    deployment: t.deployment,
  });
  const running = Promise.all(workers.map(({ worker }) => worker.run())).then(() => undefined);
  exportQueueMetrics(
    ctx.temporal,
    t.namespace,
    workers.map((w) => ({ pool: w.workload, taskQueue: w.taskQueue })),
  );
  for (const { worker, workload } of workers) exportWorkerSlots(worker, workload);
  // this process's API (if any) starts executions eagerly on these workers
  ctx.temporalEager = new Client({
    connection,
    namespace: t.namespace,
    interceptors: { workflow: clientTracingInterceptors(ctx.tracing) },
  });
  const dispatcher = startDispatcher(ctx, opts);
  // a new deployment's first version becomes current (later ones wait for deploy:promote)
  if (t.deployment) void adoptIfFirstVersion(ctx.temporal, t.namespace, t.deployment, ctx.logger);
  // the first background worker; with pools, the single queue's old schedule goes
  const oldSchedule = t.queueLayout === 'pools' ? t.taskQueuePrefix : undefined;
  if (t.queueLayout === 'shared' || t.workloads.includes('background'))
    await ensureHousekeepingSchedule(ctx.temporal, t.taskQueues.background, ctx.logger, oldSchedule);
  return {
    workers,
    dispatcher,
    running,
    async stop() {
      ctx.temporalEager = undefined;
      await dispatcher.stop();
      for (const { worker } of workers) {
        forgetWorkerSlots(worker);
        if (worker.getState() === 'RUNNING') worker.shutdown();
      }
      await running.catch((error) => ctx.logger.error({ err: error }, 'worker stopped with an error'));
      await connection.close().catch(() => undefined);
    },
  };
}

/** The event dispatcher (the outbox to Temporal), started unless `dispatch` is false. */
function startDispatcher(ctx: AppContext, opts: { listen?: boolean; dispatch?: boolean }) {
  const outbox = {
    knex: ctx.orm.em.getConnection().getKnex(),
    temporal: ctx.temporal,
    config: ctx.config,
    logger: ctx.logger,
  };
  const dispatcher = new EventDispatcher({
    ...outbox,
    listenUrl: opts.listen === false ? undefined : ctx.orm.config.get('clientUrl'),
    handlers: createOutboxHandlers(outbox),
  });
  if (opts.dispatch !== false) dispatcher.start();
  return dispatcher;
}

export { closeServer, listen, onShutdownSignal } from './http-lifecycle';
