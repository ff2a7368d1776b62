import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { call } from '../support/test-app';

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
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`,
    );
  expect(serious, `axe-core on ${label}`).toEqual([]);
}
