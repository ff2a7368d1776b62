import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { CHROMIUM_PATH } from '../../playwright.config';
import jestGlobalSetup from '../support/global-setup';
import jestGlobalTeardown from '../support/global-teardown';
import { startTestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The real stack, once per run: the jest global setup's Temporal dev server (free ports), fresh
 * PostgreSQL database with migrations and worker, plus one API instance on a free port serving the
 * console built from web/ (rebuilt first unless CONSOLE_PREBUILT=1, as .ci/run sets after `npm run build`).
 */
export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  if (process.env.CONSOLE_PREBUILT !== '1' || !fs.existsSync(path.join(ROOT, 'dist/console/index.html'))) {
    execFileSync('npm', ['run', '-s', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
  }
  await jestGlobalSetup();
  const app = await startTestApp({ TEMPORAL_UI_URL: process.env.VP_TEST_TEMPORAL_UI ?? '' });
  const control = await startLlmControl();
  process.env.VP_BROWSER_BASE_URL = app.baseUrl;
  process.env.VP_BROWSER_DATA_DIR = app.dataDir;
  process.env.VP_BROWSER_LLM_CONTROL = control.url;
  return async () => {
    await new Promise((resolve) => control.server.close(resolve));
    await app.close();
    await jestGlobalTeardown();
  };
}

interface LlmDouble {
  script(fn: ((request: unknown, index: number) => unknown) | undefined): void;
}

/**
 * The run's worker calls the LLM double the jest setup started, in this process. Test files run in
 * worker processes, so they script its next answers over HTTP: `POST {calls, reply}` makes the
 * next completion ask for those tool calls and the one after answer `reply`; then it echoes again.
 */
async function startLlmControl(): Promise<{ url: string; server: http.Server }> {
  const llm = ((globalThis as Record<string, unknown>).__VP_TEST__ as { llm: LlmDouble }).llm;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const { calls, reply } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        calls: { name: string; arguments: unknown }[];
        reply: string;
      };
      llm.script((_request, index) => {
        if (index === 0) return { tool_calls: calls.map((c, i) => ({ id: `call_${i}`, ...c })) };
        llm.script(undefined);
        return { content: reply };
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}
