import { expect, type Page, test } from '@playwright/test';
import { startElevenLabsDouble } from '../support/elevenlabs-double';
import { completeManifest } from '../support/personas';
import { api, apiKey, devToken, expectAccessible, newEmail, signIn } from './support';

const CHAT_KEY = 'sk-browser-chat-secret-0123456789';
const XI_KEY = 'xi-browser-voice-secret-0123456789';
const RACHEL = '21m00Tcm4TlvDq8ikWAM';

let eleven: Awaited<ReturnType<typeof startElevenLabsDouble>>;
test.beforeAll(async () => {
  eleven = await startElevenLabsDouble({ apiKey: XI_KEY, firstByteMs: 20 });
});
test.afterAll(async () => {
  await eleven?.close();
});

/** A select (Mantine's is a combobox) by its exact label. */
const combo = (page: Page, name: string) => page.getByRole('combobox', { name, exact: true });

/** Picks `option` in the select labelled `label`. */
async function pick(page: Page, label: string, option: string | RegExp) {
  await combo(page, label).click();
  await page.getByRole('option', { name: option, exact: typeof option === 'string' }).click();
}

/** Connects a provider through the Providers page's dialog; `where` fills the preset or base URL part. */
async function connect(page: Page, name: string, kind: string, key: string, where: () => Promise<void>) {
  await page.getByRole('button', { name: 'Connect provider' }).click();
  const dialog = page.getByRole('dialog', { name: 'Connect a provider' });
  await dialog.getByLabel('Name').fill(name);
  await pick(page, 'Kind', kind);
  await where();
  await dialog.getByLabel('API key').fill(key);
  await expect(dialog).toContainText('never shown again');
  await dialog.getByRole('button', { name: 'Connect provider' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('row', { name: new RegExp(name) })).toBeVisible();
}

/** The keys typed into the page appear nowhere in it: not in its text, not in its markup. */
async function expectNoKeys(page: Page) {
  const html = await page.content();
  for (const key of [CHAT_KEY, XI_KEY]) expect(html).not.toContain(key);
}

test('connect providers, then a persona picks its tools, model provider and a provider voice', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const email = newEmail('providers');
  await signIn(page, email, '/console/providers');
  await expect(page.getByRole('heading', { level: 1, name: 'Providers' })).toBeVisible();
  await expect(page.getByText('No providers yet')).toBeVisible();

  await connect(page, 'Our OpenAI', 'Chat model', CHAT_KEY, async () => {
    await expect(combo(page, 'Service')).toHaveValue('OpenAI');
  });
  await connect(page, 'Our ElevenLabs', 'Voice', XI_KEY, async () => {
    await page.getByText('A base URL').click();
    await page.getByRole('textbox', { name: 'Base URL' }).fill(eleven.baseUrl);
    await pick(page, 'API', 'ElevenLabs');
  });
  await expect(page.getByRole('row', { name: /Our OpenAI/ })).toContainText('OpenAI (preset)');
  await expect(page.getByRole('row', { name: /Our ElevenLabs/ })).toContainText(eleven.baseUrl);
  // the keys are never shown: not after saving, not after a reload, not in the edit dialog
  await expectNoKeys(page);
  await page.reload();
  await expect(page.getByRole('row', { name: /Our ElevenLabs/ })).toBeVisible();
  await expectNoKeys(page);
  await page.getByRole('button', { name: 'Edit Our OpenAI' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Our OpenAI' });
  await expect(edit.getByLabel('New API key')).toHaveValue('');
  await expectNoKeys(page);
  await expectAccessible(page, 'the edit dialog');
  await edit.getByRole('button', { name: 'Cancel' }).click();

  // the account's tool, provider ids and a draft persona, through the API
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
  const listed = await api('GET', '/api/v2/developers/providers', { token: key });
  const idOf = (name: string) => listed.body.data.find((p: { name: string }) => p.name === name).id as string;
  const token = await devToken(email);
  const created = await api('POST', '/api/v1/developers/personas', {
    token,
    body: { manifest: completeManifest(`stack-${Date.now().toString(36)}`) },
  });
  const personaId: string = created.body.persona.id;

  await page.goto(`/console/personas/${personaId}`);
  await expect(page.getByTestId('persona-form')).toBeVisible();
  await pick(page, 'Tools the agent is offered', 'check_stock');
  await page.keyboard.press('Escape');
  await pick(page, 'Model provider', 'Our OpenAI');
  await page.getByRole('textbox', { name: /^Model/ }).fill('gpt-4o-mini');
  await page.getByRole('textbox', { name: /^Spoken language/ }).fill('en');
  await pick(page, 'Voice', 'Rachel');
  await page.getByRole('textbox', { name: /^Speech model/ }).fill('eleven_turbo_v2_5');
  await page.getByRole('button', { name: 'Play Rachel' }).click();
  await expect(page.getByLabel('Preview of Rachel')).toBeVisible();
  expect(eleven.requests.at(-1)).toMatchObject({
    voiceId: RACHEL,
    apiKey: XI_KEY,
    modelId: 'eleven_turbo_v2_5',
  });
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect(page.getByTestId('validation')).toContainText('Ready to submit');

  // the saved manifest carries them, and the reloaded form shows them
  const expected = {
    tools: [{ type: 'tool', id: tool.body.data.id }],
    voice: { provider: idOf('Our ElevenLabs'), voice_id: RACHEL, model: 'eleven_turbo_v2_5' },
    conversation: {
      model: { provider: idOf('Our OpenAI'), name: 'gpt-4o-mini' },
      transcriber: { language: 'en' },
    },
  };
  const saved = await api('GET', `/api/v1/developers/personas/${personaId}`, { token });
  expect(saved.body.persona.manifest).toMatchObject(expected);
  await page.reload();
  await expect(combo(page, 'Model provider')).toHaveValue('Our OpenAI');
  await expect(combo(page, 'Voice')).toHaveValue('Rachel');
  await expect(page.getByRole('textbox', { name: /^Speech model/ })).toHaveValue('eleven_turbo_v2_5');
  await expect(combo(page, 'Transcription provider')).toHaveValue('Platform default');
  await expectNoKeys(page);

  // the preview was metered on the voice provider: the overview's usage card shows its characters
  await page.goto('/console/');
  const usage = page.getByTestId('provider-usage');
  await expect(usage.getByRole('row', { name: /Our ElevenLabs/ })).toContainText(/\d+ characters/);

  // a provider a persona picks is not deleted: the API's 409 names the persona
  await page.goto('/console/providers');
  await page.getByRole('button', { name: 'Delete Our OpenAI' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete Our OpenAI?' });
  await confirm.getByRole('button', { name: 'Delete provider' }).click();
  await expect(confirm.getByRole('alert')).toContainText(/in use by 1 persona\(s\): stack-/);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('row', { name: /Our OpenAI/ })).toBeVisible();
});

test('a provider the API refuses for a field shows on that field', async ({ page }) => {
  const email = newEmail('providers-refused');
  await signIn(page, email, '/console/providers');
  const token = await devToken(email);
  const slug = `refused-${Date.now().toString(36)}`;
  const created = await api('POST', '/api/v1/developers/personas', {
    token,
    body: { manifest: completeManifest(slug) },
  });
  const personaId: string = created.body.persona.id;
  await page.goto(`/console/personas/${personaId}`);
  await page.getByRole('tab', { name: 'JSON' }).click();
  await page
    .getByLabel('Manifest (JSON)')
    .fill(JSON.stringify({ ...completeManifest(slug), conversation: { model: { provider: 'prov_nope' } } }));
  await expect(page.getByTestId('save-state')).toHaveText('Not saved');
  await page.getByRole('tab', { name: 'Form' }).click();
  const select = combo(page, 'Model provider');
  await expect(select).toHaveAttribute('aria-invalid', 'true');
  await expect(select).toHaveValue('prov_nope (not one of your chat providers)');

  // the Providers page: a name already used is named on its field
  await page.goto('/console/providers');
  for (const attempt of [1, 2]) {
    await page.getByRole('button', { name: 'Connect provider' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Connect a provider' });
    await dialog.getByLabel('Name').fill('Twice');
    await dialog.getByLabel('API key').fill(CHAT_KEY);
    await dialog.getByRole('button', { name: 'Connect provider' }).click();
    if (attempt === 1) await expect(dialog).toBeHidden();
    else {
      await expect(dialog.getByLabel('Name')).toHaveAttribute('aria-invalid', 'true');
      await expect(dialog.getByLabel('Name')).toHaveAccessibleDescription(/already used/);
    }
  }
});
