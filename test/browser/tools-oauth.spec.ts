import { expect, test } from '@playwright/test';
import { OAuth2Server } from 'oauth2-mock-server';
import { api, devToken, expectAccessible, newEmail, signIn, TEST_ADMIN_TOKEN } from './support';

// a real OAuth 2.0 authorization server from npm, on a free port: its /authorize redirects straight back with a code
let oauth: OAuth2Server;
const revocations: unknown[] = [];
test.beforeAll(async () => {
  oauth = new OAuth2Server();
  await oauth.issuer.keys.generate('RS256');
  await oauth.start(0, '127.0.0.1');
  oauth.service.on('beforeRevoke', (response: unknown) => {
    revocations.push(response);
  });
});
test.afterAll(async () => {
  await oauth.stop();
});

test('register an OAuth provider, connect through its authorize redirect, see the connection, revoke it', async ({
  page,
}) => {
  const email = newEmail('oauth');
  const token = await devToken(email);
  const me = await api('GET', '/api/v1/developers/me', { token });
  await api('PUT', `/api/admin/accounts/${me.body.publisherId}/plan`, {
    token: TEST_ADMIN_TOKEN,
    body: { plan: 'enterprise' },
  });
  await signIn(page, email, '/console/tools?tab=oauth');
  await expect(page.getByRole('heading', { name: 'OAuth providers' })).toBeVisible();
  await expect(page.getByText('No OAuth providers in the live environment.')).toBeVisible();
  await expect(page.getByText('No connected accounts in the live environment.')).toBeVisible();
  await expectAccessible(page, 'OAuth tab at 1280 px');
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, 'OAuth tab at 390 px');
  await page.setViewportSize({ width: 1280, height: 800 });

  const base = oauth.issuer.url!;
  await page.getByRole('button', { name: 'Register provider' }).click();
  const dialog = page.getByRole('dialog', { name: 'Register an OAuth provider' });
  await dialog.getByLabel('Name').fill('Calendar');
  await dialog.getByLabel('Authorization URL').fill(`${base}/authorize`);
  await dialog.getByLabel('Token URL').fill(`${base}/token`);
  await dialog.getByLabel('Revocation URL').fill(`${base}/revoke`);
  await dialog.getByLabel('Client ID').fill('voice-client');
  await dialog.getByLabel('Client secret').fill('client-secret-987');
  await dialog.getByLabel('Scopes').fill('calendar.read offline_access');
  await expect(dialog.getByText('/console/tools/oauth/callback')).toBeVisible();
  await expectAccessible(page, 'register OAuth provider dialog');
  await dialog.getByRole('button', { name: 'Register provider' }).click();
  await expect(dialog).toBeHidden();
  const provider = page.getByRole('row', { name: /Calendar/ });
  await expect(provider).toContainText('voice-client');
  await expect(page.locator('body')).not.toContainText('client-secret-987');

  // the real redirect: to the provider's authorize URL, and back to the console with code and state
  await provider.getByRole('button', { name: 'Connect Calendar' }).click();
  await expect(page).toHaveURL(/\/console\/tools\/oauth\/callback\?code=/);
  await expect(page.getByTestId('oauth-connected')).toContainText('Calendar is connected as oat_');
  await expectAccessible(page, 'OAuth callback page');
  await page.getByRole('link', { name: 'Back to OAuth connections' }).click();

  const connection = page
    .getByRole('table', { name: 'OAuth connections' })
    .getByRole('row', { name: /oat_/ });
  await expect(connection).toContainText('Calendar');
  await expect(connection).toContainText('active');
  await expect(connection.getByRole('cell').nth(5)).toHaveText('yes'); // refreshable
  await expectAccessible(page, 'OAuth tab with a connection at 1280 px');
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, 'OAuth tab with a connection at 390 px');
  await page.setViewportSize({ width: 1280, height: 800 });

  await connection.getByRole('button', { name: /^Revoke oat_/ }).click();
  await page
    .getByRole('dialog', { name: 'Revoke this connection?' })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await expect(connection).toContainText('revoked');
  expect(revocations).toHaveLength(2); // the refresh token and the access token, at the provider's revocation URL
});
