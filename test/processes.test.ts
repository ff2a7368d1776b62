import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

function spawnProcess(
  script: string,
  env: Record<string, string>,
): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(TSX, [path.join(ROOT, 'src/bin', script)], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: TEST_ENV.databaseUrl(),
      TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
      TEMPORAL_TASK_QUEUE: `proc-${process.pid}`,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'vp-proc-')),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  return { child, output: () => output };
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 45_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, ms: Date.now() - started })));
}

describe('processes: npm run api / npm run worker stop cleanly on SIGTERM', () => {
  it('the API drains and exits 0 within 10 s', async () => {
    const port = String(40_000 + (process.pid % 10_000));
    const { child, output } = spawnProcess('api.ts', { PORT: port, HOST: '127.0.0.1' });
    try {
      await waitFor(async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
        } catch {
          return false;
        }
      }, `the api to listen\n${output()}`);
      const exited = exitOf(child);
      child.kill('SIGTERM');
      const { code, ms } = await exited;
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
      expect(output()).toContain('shutting down');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('the worker stops polling and exits 0 within 10 s', async () => {
    // its own database: a worker also dispatches the outbox, which must stay the run worker's
    const db = await createIsolatedDatabase('proc');
    const { child, output } = spawnProcess('worker.ts', { DATABASE_URL: db.url });
    try {
      await waitFor(() => output().includes('worker polling'), `the worker to poll\n${output()}`);
      const exited = exitOf(child);
      child.kill('SIGTERM');
      const { code, ms } = await exited;
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    } finally {
      child.kill('SIGKILL');
      await db.drop();
    }
  });

  it('a bad configuration stops the process with a message naming the variable', async () => {
    const { child, output } = spawnProcess('api.ts', { PORT: 'not-a-port' });
    const { code } = await exitOf(child);
    expect(code).toBe(2);
    expect(output()).toContain('PORT:');
  });
});
