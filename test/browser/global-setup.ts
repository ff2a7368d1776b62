import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
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
  process.env.VP_BROWSER_BASE_URL = app.baseUrl;
  process.env.VP_BROWSER_DATA_DIR = app.dataDir;
  return async () => {
    await app.close();
    await jestGlobalTeardown();
  };
}
