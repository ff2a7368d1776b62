import os from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

/**
 * Browser tests of the web console (`npm run test:browser`): Playwright's test runner driving the
 * system's Chromium (Debian's `chromium` package; no browser download), against the real stack the
 * global setup starts (Temporal dev server, a fresh PostgreSQL database, worker and API on free ports).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * What the fake microphone says in test/browser/voice-call.spec.ts: eSpeak speech as a WAV, written by
 * the global setup. Set once here, in the runner's process, so its test workers inherit the same path.
 */
process.env.VP_BROWSER_CALLER_WAV ??= path.join(os.tmpdir(), `vp-browser-caller-${process.pid}.wav`);
export const CALLER_WAV = process.env.VP_BROWSER_CALLER_WAV;

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
