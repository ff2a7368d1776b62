import { expect, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { api, expectAccessible, newEmail, signIn, TEST_ADMIN_TOKEN } from './support';

test('create, validate live, submit a persona; approved through the admin API, it shows as published', async ({
  page,
}) => {
  const slug = `ava-${Date.now().toString(36)}`;
  await signIn(page, newEmail('personas'), '/console/personas');
  await expect(page.getByRole('heading', { name: 'Personas' })).toBeVisible();
  await page.getByRole('button', { name: 'New persona' }).click();
  const dialog = page.getByRole('dialog', { name: 'New persona' });
  await dialog.getByLabel('Name').fill('Ava');
  await dialog.getByLabel('Slug').fill(slug);
  await dialog.getByRole('button', { name: 'Create draft' }).click();

  await expect(page).toHaveURL(/\/console\/personas\/[^/]+$/);
  const personaId = page.url().split('/').pop()!;
  await expect(page.getByRole('heading', { name: 'Ava' })).toBeVisible();
  const validation = page.getByTestId('validation');
  // the draft is incomplete: the API's rules are listed
  await expect(validation).toContainText(/\d+ errors?/);
  await expect(validation).toContainText('identity.description: is required');
  await expect(page.getByRole('button', { name: 'Submit for review' })).toBeDisabled();
  await expectAccessible(page, 'persona draft');

  const editor = page.getByLabel('Manifest (JSON)');
  await page.getByRole('tab', { name: 'JSON' }).click();
  await editor.fill('{ "identity": ');
  await expect(validation).toContainText('The JSON does not parse');
  await expect(page.getByTestId('save-state')).toHaveText('Not saved: fix the JSON');

  // a wrong type is refused by the API with the field named
  await editor.fill(JSON.stringify({ identity: { id: slug, name: 'Ava' }, personality: { warmth: 'warm' } }));
  await expect(validation).toContainText('The manifest was refused');
  await expect(validation).toContainText('personality.warmth');

  await editor.fill(JSON.stringify(completeManifest(slug), null, 2));
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect(validation).toContainText('Ready to submit');
  await expect(validation).toContainText('warning'); // no thinking sounds
  const saved = await api('GET', `/api/v1/developers/personas/${personaId}`, { token: await tokenOf(page) });
  expect(saved.body.persona.manifest.identity.description).toBe(completeManifest(slug).identity.description);

  await page.getByRole('button', { name: 'Submit for review' }).click();
  await expect(page.getByText('Under review')).toBeVisible();
  await expect(page.locator('[data-status="submitted"]').first()).toBeVisible();
  await expect(editor).toHaveAttribute('readonly', '');
  await expectAccessible(page, 'persona under review');

  const decided = await api('POST', `/api/admin/personas/${personaId}/review`, {
    token: TEST_ADMIN_TOKEN,
    body: { decision: 'approve', notes: 'Clear and on brand.' },
  });
  expect(decided.status).toBe(200);
  // the page follows the review as it lands
  await expect(page.locator('[data-status="published"]').first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('review')).toContainText('Review approved');
  await expect(page.getByTestId('review')).toContainText('Clear and on brand.');
  // what was said on submitting (under review, 2-5 business days) goes once it is decided
  await expect(page.getByText(/business days/)).toHaveCount(0);
  // the review's test gate: this persona has no scenarios (test/review-gate.test.ts runs real suites)
  await expect(page.getByTestId('review-tests')).toContainText('No tests');
  await expect(page.getByRole('button', { name: 'Unpublish' })).toBeVisible();

  await page.getByRole('link', { name: '← Personas' }).click();
  await expect(page.getByRole('row', { name: /Ava/ })).toContainText('published');
  await expectAccessible(page, 'personas list');
});

async function tokenOf(page: import('@playwright/test').Page): Promise<string> {
  return page.evaluate<string>("JSON.parse(sessionStorage.getItem('vp.console.session')).idToken");
}
