import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { buildContext, startWorker } from '../../src/app/runtime';
import { bundleWorkflows } from '../../src/bin/bundle-workflows';
import { loadConfig } from '../../src/config/env';
import { ensureDatabaseExists } from '../../src/db/orm';
import { createLogger } from '../../src/logging/logger';
import { startTemporalDevServer } from '../../src/temporal/dev-server';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { databaseUrl, TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, TEST_WEBHOOK_ENV, testServerUrl } from './env';
import { startLlmDouble } from './llm-double';

/**
 * Once per run: a real Temporal dev server on free ports, a fresh PostgreSQL database with the
 * migrations applied, the pools' workflow bundles, and a real worker polling the run-specific task
 * queues.
 */
export default async function globalSetup(): Promise<void> {
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'error', 'test-setup');
  const admin = new Client({ connectionString: testServerUrl(), connectionTimeoutMillis: 5000 });
  await admin.connect().catch((error) => {
    throw new Error(`PostgreSQL is not reachable at ${testServerUrl()} (${error.message}); start it first`);
  });
  await admin.end();

  const temporal = await startTemporalDevServer({
    logger,
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
  });
  const dbName = `vp_test_${Date.now().toString(36)}_${process.pid}`;
  const url = databaseUrl(dbName);
  await ensureDatabaseExists(url, logger);
  const taskQueue = `vp-test-${process.pid}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-test-'));
  const llm = await startLlmDouble(); // workflow llm_prompt nodes run in this worker

  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    ...TEST_WEBHOOK_ENV,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: 'test-model',
  });
  const ctx = await buildContext(
    config,
    logger,
    { databaseUrl: url, poolMax: 5, temporalAddress: temporal.address },
    {
      migrate: true,
      registerSearchAttributes: false,
    },
  );
  // each pool's workflows bundled once for the run (a worker would bundle them at every start)
  const bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-test-bundles-'));
  process.env.WORKFLOW_BUNDLE_DIR = bundleDir;
  await bundleWorkflows({ dir: bundleDir, traced: false, log: () => undefined });
  const worker = await startWorker(ctx, temporal.address);

  Object.assign(process.env, {
    VP_TEST_DATABASE_URL: url,
    VP_TEST_DATABASE_NAME: dbName,
    VP_TEST_TEMPORAL_ADDRESS: temporal.address,
    VP_TEST_TEMPORAL_UI: temporal.uiUrl,
    VP_TEST_TASK_QUEUE: taskQueue,
    VP_TEST_LLM_BASE_URL: llm.baseUrl,
  });
  (globalThis as Record<string, unknown>).__VP_TEST__ = {
    temporal,
    ctx,
    worker,
    dbName,
    dataDir,
    bundleDir,
    llm,
  };
}
