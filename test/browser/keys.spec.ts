import { expect, test } from '@playwright/test';
import { api, expectAccessible, newEmail, signIn } from './support';

test('create a key (shown once, works at once) and revoke it (refused on the next request)', async ({
  page,
}) => {
  await signIn(page, newEmail('keys'), '/console/keys');
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
  await expect(page.getByText('No keys yet')).toBeVisible();
  await expectAccessible(page, 'API keys (empty)');

  await page.getByRole('button', { name: 'Create key' }).click();
  const create = page.getByRole('dialog', { name: 'Create an API key' });
  await create.getByLabel('Name').fill('ci laptop');
  await create.getByRole('combobox', { name: 'Environment' }).selectOption('test');
  await expectAccessible(page, 'create key dialog');
  await create.getByRole('button', { name: 'Create key' }).click();

  const shown = page.getByRole('dialog', { name: 'Copy your new key now' });
  const fullKey = (await shown.getByTestId('full-key').textContent())!.trim();
  expect(fullKey).toMatch(/^pk_test_[A-Za-z0-9]{32,}$/);
  await expect(shown.getByText('This is the only time the full key is shown')).toBeVisible();
  await expectAccessible(page, 'copy-once dialog');
  // the key works against the platform API right away
  expect((await api('GET', '/api/v2/developers/secrets', { token: fullKey })).status).toBe(200);
  await shown.getByRole('button', { name: 'I stored it' }).click();
  await expect(shown).toBeHidden();

  // only the masked prefix is listed from now on
  const row = page.getByRole('row', { name: /ci laptop/ });
  await expect(row).toContainText(`${fullKey.slice(0, 12)}****`);
  await expect(page.getByText(fullKey)).toHaveCount(0);
  await expect(row).toContainText('test');

  await row.getByRole('button', { name: 'Revoke ci laptop' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await expect(confirm).toBeHidden();
  await expect(page.getByRole('row', { name: /ci laptop/ })).toHaveCount(0);
  const refused = await api('GET', '/api/v2/developers/secrets', { token: fullKey });
  expect(refused.status).toBe(401);
});

test('a key without a name is refused by the form, and the API names a bad field', async ({ page }) => {
  await signIn(page, newEmail('keys-bad'), '/console/keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  const create = page.getByRole('dialog', { name: 'Create an API key' });
  // whitespace passes the browser's required check; the API trims it and names the field
  await create.getByLabel('Name').fill('   ');
  await create.getByRole('button', { name: 'Create key' }).click();
  await expect(create.getByRole('alert')).toContainText('name:');
  await expect(page.getByRole('dialog', { name: 'Copy your new key now' })).toHaveCount(0);
});

test("the key dialog starts in the header's environment, with every scope; a narrowed key carries only its scopes", async ({
  page,
}) => {
  await signIn(page, newEmail('keys-scopes'), '/console/keys');
  await page.getByRole('radiogroup', { name: 'Environment' }).getByText('Test').click();
  await page.getByRole('button', { name: 'Create key' }).click();
  const create = page.getByRole('dialog', { name: 'Create an API key' });
  await expect(create.getByRole('combobox', { name: 'Environment' })).toHaveValue('test');
  await expect(create.getByRole('checkbox', { checked: true })).toHaveCount(17);
  await create.getByLabel('Name').fill('read-only reporting');
  for (const scope of await create.getByRole('checkbox').all()) {
    if ((await scope.getAttribute('value')) !== 'sessions:read') await scope.uncheck();
  }
  await expect(create.getByRole('checkbox', { checked: true })).toHaveCount(1);
  await expectAccessible(page, 'create key dialog with scopes');
  await create.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('dialog', { name: 'Copy your new key now' });
  const fullKey = (await shown.getByTestId('full-key').textContent())!.trim();
  expect(fullKey).toMatch(/^pk_test_/);
  expect((await api('GET', '/api/v2/developers/sessions', { token: fullKey })).status).toBe(200);
  expect((await api('GET', '/api/v2/developers/secrets', { token: fullKey })).status).toBe(403);
});

test('a rate-limited page says when it will ask again, then shows its data', async ({ page }) => {
  let refused = 0;
  await page.route('**/api/v2/developers/webhooks?*', async (route) => {
    if (refused++ > 0) return route.continue();
    await route.fulfill({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '3' },
      body: JSON.stringify({
        success: false,
        error: 'Rate limit exceeded: 60 requests per minute for the free plan',
        code: 'RATE_LIMIT_EXCEEDED',
      }),
    });
  });
  await signIn(page, newEmail('keys-429'), '/console/webhooks');
  const notice = page.getByRole('status').filter({ hasText: 'Too many requests for now' });
  await expect(notice).toContainText(/Retrying in [1-3] s\./);
  await expectAccessible(page, 'rate-limited page');
  await expect(page.getByText('No webhooks in the live environment.')).toBeVisible({ timeout: 10_000 });
  await expect(notice).toBeHidden();
  expect(refused).toBe(2);
});
