import { expect, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { api, devToken, expectAccessible, newEmail, signIn } from './support';

/**
 * The Knowledge page (issue 43 item 5): a base created, a text and a file added and watched as they
 * index, searched as a turn would; a persona picks the base in its form, and the base says who uses it.
 */
test('a knowledge base: text and a file indexed, searched, picked by a persona', async ({ page }) => {
  const email = newEmail('knowledge');
  await signIn(page, email, '/console/knowledge');
  const token = await devToken(email);
  await page.getByRole('radiogroup', { name: 'Environment' }).getByText('Test').click();
  await expect(page.getByText('No knowledge bases yet.')).toBeVisible();

  await page.getByRole('button', { name: 'New knowledge base' }).click();
  const dialog = page.getByRole('dialog', { name: 'New knowledge base' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Help centre');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('heading', { name: 'Help centre' })).toBeVisible();
  await expect(page.getByTestId('used-by')).toContainText('no persona yet');

  const add = page.getByTestId('add-source');
  await add.getByText('Text', { exact: true }).click();
  await add.getByRole('textbox', { name: 'Name' }).fill('Returns policy');
  await add
    .getByRole('textbox', { name: 'Text' })
    .fill('# Refunds\n\nRefunds reach the original card within 14 days of the parcel arriving.');
  await add.getByRole('button', { name: 'Add source' }).click();
  await add.getByText('File', { exact: true }).click();
  await add.locator('input[type="file"]').setInputFiles({
    name: 'shipping.md',
    mimeType: 'text/markdown',
    buffer: Buffer.from('# Shipping\n\nParcels leave the depot every Tuesday by hovercraft.'),
  });
  await add.getByRole('button', { name: 'Add source' }).click();
  const sources = page.getByRole('table', { name: 'Sources' });
  await expect(sources.getByRole('row', { name: /Returns policy/ })).toContainText('ready', {
    timeout: 30_000,
  });
  await expect(sources.getByRole('row', { name: /shipping\.md/ })).toContainText('ready', {
    timeout: 30_000,
  });
  await expectAccessible(page, 'knowledge base with two sources');

  await page.getByRole('textbox', { name: 'Search' }).fill('hovercraft');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByTestId('search-hit').first()).toContainText('Parcels leave the depot every Tuesday');

  // a persona picks the base in its form's Knowledge section
  const persona = await api('POST', '/api/v1/developers/personas', {
    token,
    body: { manifest: completeManifest(`kb-${Date.now().toString(36)}`) },
  });
  const personaId: string = persona.body.persona.id;
  await page.goto(`/console/personas/${personaId}`);
  await page.getByRole('combobox', { name: 'Knowledge bases' }).click();
  await page.getByRole('option', { name: 'Help centre' }).click();
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  const saved = await api('GET', `/api/v1/developers/personas/${personaId}`, { token });
  expect(saved.body.persona.manifest.knowledge.bases).toHaveLength(1);
  await page.goto(`/console/knowledge/${saved.body.persona.manifest.knowledge.bases[0]}`);
  await expect(page.getByTestId('used-by')).toContainText('Ava');
});
