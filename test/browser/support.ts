import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { call } from '../support/test-app';

/** What the fake microphone says (CALLER_WAV) and the run's transcription double hears. */
export const CALLER_WORDS = 'What is new in the shop today?';

/** The API (and console) of this run, started by the global setup. */
export function baseUrl(): string {
  const url = process.env.VP_BROWSER_BASE_URL;
  if (!url) throw new Error('VP_BROWSER_BASE_URL is not set: run through `npm run test:browser`');
  return url;
}

let counter = 0;
/** A fresh email per call, so every test has its own account. */
export function newEmail(label: string): string {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}@example.com`;
}

/** An ID token of the local identity provider, as the sign-in page gets it. */
export async function devToken(email: string): Promise<string> {
  const res = await call<{ idToken: string }>(baseUrl(), 'POST', '/console/auth/dev-token', {
    body: { email },
  });
  if (res.status !== 200) throw new Error(`dev token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.idToken;
}

/** Signs in through the sign-in page (development identity provider) and waits for the console frame. */
export async function signIn(page: Page, email: string, path = '/console/'): Promise<void> {
  await page.goto(path);
  await expect(page).toHaveURL(/\/console\/sign-in/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/** Runs axe-core on the page as it is now: no serious or critical violation (WCAG 2.1 A/AA rules). */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  // dialogs fade in and out: judge the page once its transitions have ended
  await page.waitForFunction(() =>
    (globalThis as unknown as { document: { getAnimations(): { playState: string }[] } }).document
      .getAnimations()
      .every((a) => a.playState !== 'running'),
  );
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes
          .map(
            (n) =>
              `${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ')} ${n.html.slice(0, 160)}`,
          )
          .join('\n    ')}`,
    );
  expect(serious, `axe-core on ${label}`).toEqual([]);
}

/** The console's (and this run's) operator token, for the admin API. */
export { TEST_ADMIN_TOKEN } from '../support/env';

/** A platform API key of the account of `email` (every scope), made through the console API. */
export async function apiKey(email: string, environment: 'live' | 'test' = 'live'): Promise<string> {
  const token = await devToken(email);
  const res = await call(baseUrl(), 'POST', '/api/v1/developers/keys', {
    token,
    body: { name: `browser test ${environment}`, environment },
  });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key.fullKey;
}

/** Calls the API as the test itself (not through the page). */
export function api<T = any>(method: string, path: string, opts: Parameters<typeof call>[3] = {}) {
  return call<T>(baseUrl(), method, path, opts);
}

/** The Twilio double's account (global-setup.ts): a number on it places calls that the double answers. */
export function twilioAccount(): { accountSid: string; authToken: string } {
  const accountSid = process.env.VP_BROWSER_TWILIO_ACCOUNT_SID;
  const authToken = process.env.VP_BROWSER_TWILIO_AUTH_TOKEN;
  if (!accountSid || !authToken) throw new Error('the Twilio double is not running: run through playwright');
  return { accountSid, authToken };
}
