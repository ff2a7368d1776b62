import fs from 'node:fs';
import { Client } from 'pg';
import { testServerUrl } from './env';

interface TestGlobals {
  temporal: { stop(): Promise<void> };
  ctx: { close(): Promise<void> };
  worker: { stop(): Promise<void> };
  dbName: string;
  dataDir: string;
}

export default async function globalTeardown(): Promise<void> {
  const g = (globalThis as Record<string, unknown>).__VP_TEST__ as TestGlobals | undefined;
  if (!g) return;
  await g.worker.stop();
  await g.ctx.close();
  await g.temporal.stop();
  const admin = new Client({ connectionString: testServerUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${g.dbName}" WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  fs.rmSync(g.dataDir, { recursive: true, force: true });
}
