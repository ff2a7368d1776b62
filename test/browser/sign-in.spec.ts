import { expect, test } from '@playwright/test';
import { call } from '../support/test-app';
import { baseUrl, devToken, expectAccessible, newEmail, signIn } from './support';

test('the console is served at /console: hashed assets cached for a year, pages never cached', async ({
  request,
}) => {
  const index = await request.get('/console/keys');
  expect(index.status()).toBe(200);
  expect(index.headers()['cache-control']).toBe('no-cache');
  expect(index.headers()['content-security-policy']).toContain("script-src 'self'");
  const html = await index.text();
  const script = html.match(/src="(\/console\/assets\/index-[^"]+\.js)"/)?.[1];
  expect(script).toBeTruthy();
  const asset = await request.get(script!, { headers: { 'accept-encoding': 'gzip' } });
  expect(asset.status()).toBe(200);
  expect(asset.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(asset.headers()['content-encoding']).toBe('gzip');
  expect(asset.headers()['content-type']).toContain('text/javascript');
  const missing = await request.get('/console/assets/nothing-here-12345678.js');
  expect(missing.status()).toBe(404);
});

test('sign in with the development identity provider, see the account, sign out', async ({ page }) => {
  const email = newEmail('signin');
  await page.goto('/console/');
  await expect(page).toHaveURL(/\/console\/sign-in\?returnTo=%2F/);
  await expect(page.getByRole('heading', { name: 'Sign in to the Voice Platform console' })).toBeVisible();
  await expectAccessible(page, 'sign-in');

  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('account-email')).toHaveText(email);

  // the console's ID token is the account's: /me answers the same publisher id
  const token = await page.evaluate<string>(
    "JSON.parse(sessionStorage.getItem('vp.console.session')).idToken",
  );
  const me = await call(baseUrl(), 'GET', '/api/v1/developers/me', { token });
  expect(me.body.email).toBe(email);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/console\/sign-in/);
  await page.goto('/console/keys');
  await expect(page).toHaveURL(/\/console\/sign-in\?returnTo=%2Fkeys/);
});

test('a bad email is refused with the field named', async ({ request }) => {
  const res = await request.post('/console/auth/dev-token', { data: { email: 'not-an-email' } });
  expect(res.status()).toBe(400);
  const body = await res.json();
  expect(body.code).toBe('VALIDATION_FAILED');
  expect(body.validationErrors[0]).toMatch(/^email:/);
  expect(await devToken(newEmail('ok'))).toMatch(/^ey/);
});

test('after sign-in the console goes back to the page asked for', async ({ page }) => {
  await signIn(page, newEmail('return'), '/console/keys');
  await expect(page).toHaveURL(/\/console\/keys$/);
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
});
