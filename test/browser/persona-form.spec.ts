import { expect, type Page, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { api, apiKey, devToken, expectAccessible, newEmail, signIn } from './support';

const field = (page: Page, name: string) => page.getByRole('textbox', { name: new RegExp(`^${name}`) });
/** A select, chips list or suggestion field. */
const combo = (page: Page, name: string) => page.getByRole('combobox', { name, exact: true });

/** Types each item into a chips field, Enter after each. */
async function addChips(page: Page, name: string, items: string[]) {
  for (const item of items) {
    await combo(page, name).fill(item);
    await combo(page, name).press('Enter');
  }
}

/** A persona of a fresh account made through the API, its page open. */
async function openPersona(page: Page, label: string, manifest: object) {
  const email = newEmail(label);
  await signIn(page, email, '/console/personas');
  const token = await devToken(email);
  const created = await api('POST', '/api/v1/developers/personas', { token, body: { manifest } });
  expect(created.status).toBe(201);
  const id: string = created.body.persona.id;
  await page.goto(`/console/personas/${id}`);
  await expect(page.getByRole('tab', { name: 'Form' })).toHaveAttribute('aria-selected', 'true');
  return { id, token };
}

test('create a persona by form alone and submit it', async ({ page }) => {
  const slug = `ava-form-${Date.now().toString(36)}`;
  await signIn(page, newEmail('persona-form'), '/console/personas');
  await page.getByRole('button', { name: 'New persona' }).click();
  const dialog = page.getByRole('dialog', { name: 'New persona' });
  await dialog.getByLabel('Name').fill('Ava');
  await dialog.getByLabel('Slug').fill(slug);
  await dialog.getByRole('button', { name: 'Create draft' }).click();
  await expect(page.getByRole('heading', { name: 'Ava' })).toBeVisible();
  const personaId = page.url().split('/').pop()!;
  const form = page.getByTestId('persona-form');
  await expect(form).toBeVisible();
  await expect(field(page, 'Slug')).toHaveValue(slug);
  // a new draft: the rules' errors are listed beside the form; no field is marked before it is left or saved
  await expect(page.getByTestId('validation')).toContainText(/\d+ errors/);
  await expect(form.locator('[aria-invalid="true"]')).toHaveCount(0);
  // an unset dial is drawn unset (no thumb, no bar), not at a value it does not have
  await expect(page.getByTestId('value-personality.warmth')).toHaveText('not set');
  await expect(page.getByRole('slider', { name: 'Warmth' })).toHaveCSS('opacity', '0');

  await field(page, 'Description').fill(
    'Ava answers order questions and tracks parcels for a home-goods shop.',
  );
  await expect(form).toContainText('/ 2000');
  await combo(page, 'Voice').click();
  await page.getByRole('option', { name: /^Aria/ }).click();
  await page.getByRole('button', { name: 'Play Aria' }).click();
  await expect(page.getByLabel('Preview of Aria')).toBeVisible();
  for (const dial of ['Warmth', 'Humor', 'Directness', 'Formality']) {
    await page.getByRole('slider', { name: dial }).press('ArrowRight');
  }
  await expect(page.getByTestId('value-personality.warmth')).toHaveText('0.55');
  await expect(page.getByRole('slider', { name: 'Warmth' })).toHaveCSS('opacity', '1');
  await addChips(page, 'Traits', ['patient', 'precise']);
  await combo(page, 'Category').click();
  await page.getByRole('option', { name: 'customer support' }).click();
  await addChips(page, 'Greetings', ['Hi, this is Ava. Which order can I check?']);
  await addChips(page, 'Out-of-scope topics', ['medical advice']);
  await combo(page, 'Language').fill('en-US');
  await page.getByRole('slider', { name: 'Temperature' }).press('ArrowLeft');

  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect(page.getByTestId('validation')).toContainText('Ready to submit');
  // the JSON tab shows the same draft
  await page.getByRole('tab', { name: 'JSON' }).click();
  await expect(page.getByLabel('Manifest (JSON)')).toHaveValue(
    /"greetings": \[\s*"Hi, this is Ava\. Which order can I check\?"/,
  );
  await page.getByRole('tab', { name: 'Form' }).click();

  await page.getByRole('button', { name: 'Submit for review' }).click();
  await expect(page.getByText('Under review')).toBeVisible();
  await expect(page.locator('[data-status="submitted"]').first()).toBeVisible();
  await expect(field(page, 'Description')).toBeDisabled();
  const saved = await api('GET', `/api/v1/developers/personas/${personaId}`, {
    token: await page.evaluate<string>("JSON.parse(sessionStorage.getItem('vp.console.session')).idToken"),
  });
  expect(saved.body.persona.status).toBe('submitted');
  expect(saved.body.persona.manifest).toMatchObject({
    voice: { provider: 'espeak-ng', voice_id: 'espeak-en-us-aria' },
    personality: { warmth: 0.55, traits: ['patient', 'precise'] },
    knowledge: { category: 'customer_support' },
    conversation: { language: 'en-US', model: { temperature: 0.9 } },
  });
});

test('the form picks the tools its agent is offered; the tools page names the agents that use each', async ({
  page,
}) => {
  const email = newEmail('persona-tools');
  await signIn(page, email, '/console/personas');
  const key = await apiKey(email, 'live');
  const tool = await api('POST', '/api/v2/developers/tools', {
    token: key,
    body: {
      name: 'check_stock',
      type: 'webhook',
      config: { url: 'https://example.com/stock', method: 'POST' },
    },
  });
  expect(tool.status).toBe(201);
  const token = await devToken(email);
  const created = await api('POST', '/api/v1/developers/personas', {
    token,
    body: { manifest: completeManifest(`tools-${Date.now().toString(36)}`) },
  });
  const id: string = created.body.persona.id;
  await page.goto(`/console/personas/${id}`);
  await expect(page.getByText('No tools: the agent answers from its prompt alone.')).toBeVisible();
  await combo(page, 'Tools the agent is offered').click();
  await page.getByRole('option', { name: 'check_stock' }).click();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  const saved = await api('GET', `/api/v1/developers/personas/${id}`, { token });
  expect(saved.body.persona.manifest.tools).toEqual([{ type: 'tool', id: tool.body.data.id }]);

  await page.goto('/console/tools?tab=custom');
  await expect(page.getByTestId(`used-by-${tool.body.data.id}`)).toHaveText('Ava');
  await page.getByTestId(`used-by-${tool.body.data.id}`).getByRole('link', { name: 'Ava' }).click();
  await expect(page).toHaveURL(new RegExp(`/console/personas/${id}$`));
});

test('a refused edit survives a reload; the guard asks before leaving; discard restores the saved version', async ({
  page,
}) => {
  const slug = `ava-kept-${Date.now().toString(36)}`;
  const { id, token } = await openPersona(page, 'persona-refused', completeManifest(slug));
  await page.getByRole('tab', { name: 'JSON' }).click();
  await page
    .getByLabel('Manifest (JSON)')
    .fill(JSON.stringify({ ...completeManifest(slug), mood: 'cheerful' }, null, 2));
  const marker = page.getByTestId('unsaved-draft');
  await expect(marker).toContainText('Unsaved draft — not accepted by the server');
  await expect(page.getByTestId('validation')).toContainText('mood: unknown field');

  // leaving through the console asks first
  await page.getByRole('link', { name: '← Personas' }).click();
  const leave = page.getByRole('dialog', { name: 'Leave with unsaved changes?' });
  await expect(leave).toBeVisible();
  await leave.getByRole('button', { name: 'Stay on this page' }).click();
  await expect(page).toHaveURL(new RegExp(`/personas/${id}$`));

  // the browser's own "leave site?" on reload
  const asked: string[] = [];
  page.on('dialog', (d) => {
    asked.push(d.type());
    return d.accept();
  });
  await page.reload();
  expect(asked).toEqual(['beforeunload']);
  await expect(marker).toContainText('Unsaved draft — not accepted by the server');
  await page.getByRole('tab', { name: 'JSON' }).click();
  await expect(page.getByLabel('Manifest (JSON)')).toHaveValue(/"mood": "cheerful"/);
  const server = await api('GET', `/api/v1/developers/personas/${id}`, { token });
  expect(server.body.persona.manifest.mood).toBeUndefined();

  await marker.getByRole('button', { name: 'Discard my changes' }).click();
  await expect(marker).toBeHidden();
  await expect(page.getByLabel('Manifest (JSON)')).not.toHaveValue(/mood/);
  await expect(page.getByTestId('validation')).toContainText('Ready to submit');
  await page.reload();
  await expect(page.getByTestId('persona-form')).toBeVisible();
  await expect(marker).toBeHidden();
  await expect(page.getByRole('button', { name: 'Submit for review' })).toBeEnabled();
});

test('the validation errors and a refused save show on the fields they concern', async ({ page }) => {
  const slug = `ava-inline-${Date.now().toString(36)}`;
  await openPersona(page, 'persona-inline', { identity: { id: slug, name: 'Ava' } });
  await expect(page.getByTestId('validation')).toContainText(/\d+ errors/);
  const description = field(page, 'Description');
  const warmth = page.getByRole('slider', { name: 'Warmth' });
  // a field shows its problem once it was left
  await expect(description).not.toHaveAttribute('aria-invalid', 'true');
  await description.focus();
  await description.blur();
  await expect(description).toHaveAttribute('aria-invalid', 'true');
  await expect(description).toHaveAccessibleDescription(/is required/);
  await expect(warmth).not.toHaveAttribute('aria-invalid', 'true');

  // fixing a field through the form clears its error once saved and validated; after that save,
  // every field shows its problems
  await description.fill('Ava answers order questions for a home-goods shop.');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect(description).not.toHaveAttribute('aria-invalid', 'true');
  await expect(warmth).toHaveAttribute('aria-invalid', 'true');
  await expect(warmth).toHaveAccessibleDescription(/is required/);
  await expect(combo(page, 'Category')).toHaveAttribute('aria-invalid', 'true');

  // the PUT's refusal (a wrong type, typed as JSON) shows on its field in the form
  await page.getByRole('tab', { name: 'JSON' }).click();
  await page
    .getByLabel('Manifest (JSON)')
    .fill(
      JSON.stringify({ identity: { id: slug, name: 'Ava' }, conversation: { model: { maxTokens: 'many' } } }),
    );
  await expect(page.getByTestId('save-state')).toHaveText('Not saved');
  await page.getByRole('tab', { name: 'Form' }).click();
  const maxTokens = page.getByRole('textbox', { name: /^Reply token limit/ });
  await expect(maxTokens).toHaveAttribute('aria-invalid', 'true');
  await expect(maxTokens).toHaveAccessibleDescription(/expected number/i);
});

test('the form is accessible at 1280 and at 390 px', async ({ page }) => {
  await openPersona(page, 'persona-form-a11y', completeManifest(`ava-a11y-${Date.now().toString(36)}`));
  await expect(page.getByTestId('validation')).toContainText('Ready to submit');
  await expectAccessible(page, 'persona form at 1280 px');
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, 'persona form at 390 px');
  await page.setViewportSize({ width: 1280, height: 800 });
  // with errors on its fields too
  await field(page, 'Description').fill('Too short');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect(field(page, 'Description')).toHaveAttribute('aria-invalid', 'true');
  await expectAccessible(page, 'persona form with an error on a field');
});
