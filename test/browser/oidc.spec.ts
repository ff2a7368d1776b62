import { expect, test } from '@playwright/test';
import { OAuth2Server } from 'oauth2-mock-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { expectAccessible } from './support';

/**
 * Production sign-in: an API configured with an OIDC provider (AUTH_*), here oauth2-mock-server, a
 * real authorization server from npm. The console does the authorization code flow with PKCE in
 * the browser and calls the API with the ID token it got.
 */
let idp: OAuth2Server;
let app: TestApp;
const CLIENT_ID = 'voice-console';
const tokenRequests: Record<string, string>[] = [];

test.beforeAll(async () => {
  idp = new OAuth2Server();
  await idp.issuer.keys.generate('RS256');
  await idp.start(0, '127.0.0.1');
  idp.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    token.payload.sub = 'oidc-user-1';
    token.payload.email = 'oidc.user@example.com';
  });
  idp.service.on('beforeResponse', (_response: unknown, req: { body: Record<string, string> }) => {
    tokenRequests.push(req.body);
  });
  const issuer = idp.issuer.url!;
  app = await startTestApp({
    AUTH_ISSUER: issuer,
    AUTH_AUDIENCE: CLIENT_ID,
    AUTH_JWKS_URL: `${issuer}/jwks`,
  });
});
test.afterAll(async () => {
  await app?.close();
  await idp?.stop();
});

test('sign in with the OIDC provider: authorization code with PKCE, then the console works with its ID token', async ({
  page,
  request,
}) => {
  const config = await (await request.get(`${app.baseUrl}/console/config.json`)).json();
  expect(config.auth).toEqual({
    mode: 'oidc',
    issuer: idp.issuer.url,
    clientId: CLIENT_ID,
    scope: 'openid email profile',
  });
  // the local identity provider is off when an OIDC provider is configured
  const devToken = await request.post(`${app.baseUrl}/console/auth/dev-token`, {
    data: { email: 'x@example.com' },
  });
  expect(devToken.status()).toBe(404);

  await page.goto(`${app.baseUrl}/console/keys`);
  await expect(page.getByRole('button', { name: 'Continue to sign-in' })).toBeVisible();
  await expect(page.getByText(/You will sign in with localhost:\d+ and come back here/)).toBeVisible();
  await expectAccessible(page, 'OIDC sign-in');
  const authorize = page.waitForRequest((r) => r.url().startsWith(`${idp.issuer.url}/authorize`));
  await page.getByRole('button', { name: 'Continue to sign-in' }).click();
  const url = new URL((await authorize).url());
  expect(url.searchParams.get('client_id')).toBe(CLIENT_ID);
  expect(url.searchParams.get('response_type')).toBe('code');
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(url.searchParams.get('redirect_uri')).toBe(`${app.baseUrl}/console/auth/callback`);

  // back from the provider: signed in, on the page asked for, as the token's account
  await expect(page).toHaveURL(`${app.baseUrl}/console/keys`);
  await expect(page.getByTestId('account-email')).toHaveText('oidc.user@example.com');
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
  const redeemed = tokenRequests.find((r) => r.grant_type === 'authorization_code');
  expect(redeemed?.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
  expect(redeemed?.client_secret).toBeUndefined();

  // the ID token is what the console API accepts: create a key through the page
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('dialog', { name: 'Create an API key' }).getByLabel('Name').fill('oidc key');
  await page
    .getByRole('dialog', { name: 'Create an API key' })
    .getByRole('button', { name: 'Create key' })
    .click();
  await expect(page.getByTestId('full-key')).toHaveText(/^pk_live_/);
});

test('a callback with a forged state is refused', async ({ page }) => {
  await page.goto(`${app.baseUrl}/console/auth/callback?code=abc&state=forged`);
  await expect(page.getByRole('alert')).toContainText('Sign-in failed');
  await expect(page.getByRole('link', { name: 'Try again' })).toBeVisible();
});
