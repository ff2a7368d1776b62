import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, TEST_ENV, TEST_WEBHOOK_ENV } from './env';

const ROOT = path.resolve(__dirname, '../..');

/** An API process of its own (src/bin/api.ts), whose memory and latency a test measures apart from jest's. */
export interface ApiProcess {
  baseUrl: string;
  dataDir: string;
  pid: number;
  /** The process's resident memory now, in MB (from /proc). */
  rssMb(): number;
  /** What it logged (JSON lines), for a test that reads them. */
  output(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * Starts `node --import tsx src/bin/api.ts` against the run's database and Temporal server, on the
 * run's task queue (the global setup's worker serves its workflows), and resolves once it answers
 * /healthz.
 */
export async function startApiProcess(env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-api-proc-'));
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/bin/api.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: TEST_ENV.databaseUrl(),
        TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
        TEMPORAL_TASK_QUEUE: TEST_ENV.taskQueue(),
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        ...TEST_WEBHOOK_ENV,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'info',
        ANONYMOUS_RATE_LIMIT: '100000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API process exited:\n${output}`);
    const up = await fetch(`${baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`the API process did not answer:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    dataDir,
    pid: child.pid!,
    rssMb: () => {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    output: () => output,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Measures /healthz latency in a process of its own (this one may be busy being the abusive client). */
const LATENCY_SCRIPT = `
const [url, count] = process.argv.slice(1);
(async () => {
  const times = [];
  for (let i = 0; i < Number(count); i++) {
    const t0 = performance.now();
    await fetch(url).then((r) => r.arrayBuffer());
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  process.stdout.write(JSON.stringify({ p50: at(0.5), p99: at(0.99) }));
})();`;

/** /healthz latency over `count` requests one after another, from another process: p50 and p99, in ms. */
export async function healthzLatency(baseUrl: string, count = 100): Promise<{ p50: number; p99: number }> {
  const child = spawn(process.execPath, ['-e', LATENCY_SCRIPT, `${baseUrl}/healthz`, String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  await new Promise((r) => child.once('exit', r));
  return JSON.parse(out);
}
