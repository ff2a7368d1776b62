import { defineConfig, devices } from '@playwright/test';

/**
 * Browser tests of the web console (`npm run test:browser`): Playwright's test runner driving the
 * system's Chromium (Debian's `chromium` package; no browser download), against the real stack the
 * global setup starts (Temporal dev server, a fresh PostgreSQL database, worker and API on free ports).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'test/browser',
  testMatch: '**/*.spec.ts',
  globalSetup: './test/browser/global-setup.ts',
  outputDir: 'test-results/browser',
  // one worker: the machine has two cores, shared with the API, worker and Temporal of the run
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // the JSON report is what .ci/run counts
  reporter: [['list'], ['json', { outputFile: 'test-results/browser/results.json' }]],
  use: {
    ...devices['Desktop Chrome'],
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
    timezoneId: 'UTC',
    baseURL: process.env.VP_BROWSER_BASE_URL,
    launchOptions: { executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    actionTimeout: 15_000,
  },
});
