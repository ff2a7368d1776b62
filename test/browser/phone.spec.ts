import { randomBytes } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { api, devToken, expectAccessible, newEmail, signIn, twilioAccount } from './support';

/** A valid US number no other test of the run has. */
const usNumber = () => `+1415555${String(1000 + Math.floor(Math.random() * 9000))}`;

/** A draft persona of the account of `token` that records its calls (a test number may have a draft). */
async function draftPersona(token: string): Promise<string> {
  const base = completeManifest(`phone-${Date.now().toString(36)}`);
  const manifest = { ...base, behaviors: { ...base.behaviors, record_calls: true } };
  const res = await api('POST', '/api/v1/developers/personas', { token, body: { manifest } });
  if (res.status !== 201) throw new Error(`persona: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.persona.id;
}

/** "Add number" in the console: a Twilio number on the double's account, after a look at Telnyx's fields. */
async function addNumber(page: Page, number: string): Promise<void> {
  await page.getByRole('button', { name: 'Add number' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a phone number' });
  const carrier = dialog.getByRole('radiogroup', { name: 'Carrier' });
  await carrier.getByText('Telnyx').click();
  for (const field of ['API key', 'Public key', 'Connection id']) {
    await expect(dialog.getByLabel(field, { exact: false }).first()).toBeVisible();
  }
  await carrier.getByText('Twilio').click();
  await expect(dialog.getByText('Connection id')).toHaveCount(0);
  const { accountSid, authToken } = twilioAccount();
  await dialog.getByRole('textbox', { name: 'Number' }).fill(number);
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Support line');
  await expect(dialog.getByRole('combobox', { name: 'Persona' })).toContainText('Ava');
  await dialog.getByRole('textbox', { name: 'Account SID' }).fill(accountSid);
  await dialog.getByLabel('Auth token').fill(authToken);
  await dialog.getByRole('button', { name: 'Add number' }).click();
  await expect(dialog).toBeHidden();
}

/** Hangs up what a failed test left ringing, so that no call outlives the run's API. */
async function hangUpLeftovers(token: string): Promise<void> {
  const headers = { 'X-Console-Environment': 'test' };
  const listed = await api('GET', '/api/v2/developers/calls?limit=50', { token, headers });
  for (const call of listed.body?.data ?? []) {
    if (['queued', 'ringing', 'in-progress'].includes(call.status)) {
      await api('POST', `/api/v2/developers/calls/${call.id}/hangup`, { token, headers });
    }
  }
}

/** The new number's carrier setup: its inbound URL to copy, and what to paste where at Twilio. */
async function expectCarrierSetup(page: Page, number: string): Promise<void> {
  const row = page.getByTestId(`phone-number-${number}`);
  await expect(row).toContainText('Support line');
  await expect(row.getByRole('link', { name: 'Ava' })).toBeVisible();
  const setup = page.getByTestId('carrier-setup');
  const inboundUrl = setup.getByTestId('inbound-url');
  await expect(inboundUrl).toHaveText(/\/api\/v2\/telephony\/twilio\/voice\/pn_/);
  await expect(setup).toContainText('A call comes in');
  await expect(setup).toContainText('HTTP POST');
  const copy = setup.getByRole('button', { name: /^Cop(y|ied) Inbound URL$/ });
  await expect(copy).toHaveAccessibleName('Copy Inbound URL');
  await copy.click();
  await expect(copy).toHaveAccessibleName('Copied Inbound URL');
  expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(await inboundUrl.textContent());
  await expect(page.getByText(twilioAccount().authToken)).toHaveCount(0); // never shown
  await expectAccessible(page, 'phone numbers with a number set up');
}

/** "Call a number" on the persona page, from `number`: the double answers as the callee. */
async function callFromPersonaPage(page: Page, personaId: string, number: string): Promise<void> {
  await page.goto(`/console/personas/${personaId}`);
  await page.getByRole('button', { name: 'Call a number' }).click();
  const dialog = page.getByRole('dialog', { name: /Call a number with Ava/ });
  await expect(dialog.getByRole('combobox', { name: 'From' })).toContainText(number);
  await dialog.getByRole('textbox', { name: 'To' }).fill('+14155550142');
  await dialog.getByRole('button', { name: 'Place call' }).click();
  await expect(dialog.getByTestId('call-placed')).toBeVisible();
  await dialog.getByRole('link', { name: 'Open the call' }).click();
}

/**
 * The ended call's recording: the player, with a duration, if it comes; else "No recording"
 * (tolerant until recordings are sure to be kept here).
 */
async function expectRecording(page: Page): Promise<void> {
  const player = page.getByTestId('call-recording');
  const played = await player.waitFor({ timeout: 15_000 }).then(
    () => true,
    () => false,
  );
  test.info().annotations.push({ type: 'recording', description: played ? 'a player' : 'none' });
  if (played) {
    await expect
      .poll(() => player.evaluate((audio) => (audio as unknown as { duration: number }).duration), {
        timeout: 10_000,
      })
      .toBeGreaterThan(0);
  } else {
    await expect(page.getByTestId('no-recording')).toBeVisible();
  }
}

/** The Calls page lists the call, and its filters narrow the list. */
async function expectCallListed(page: Page, callId: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Console sections' })
    .getByRole('link', { name: 'Calls' })
    .click();
  await page.mouse.move(640, 700); // off the link: a hovered nav link's colours are not its own
  const callRow = page.getByRole('table', { name: 'Calls' }).getByRole('row').filter({ hasText: callId });
  await expect(callRow).toContainText('outbound');
  await expect(callRow).toContainText('+14155550142');
  await expect(callRow).toContainText('completed');
  await page.getByLabel('Direction').selectOption('inbound');
  await expect(page.getByText('No call matches these filters.')).toBeVisible();
  await page.getByLabel('Direction').selectOption('outbound');
  await page.getByLabel('Status').selectOption('completed');
  await expect(callRow).toBeVisible();
  await expectAccessible(page, 'calls');
}

/**
 * Phone numbers and calls in the console (issue 39): a Twilio number added with its persona shows
 * its inbound URL to copy and where it goes at Twilio; "Call a number" on the persona page places a
 * test call that the Twilio double answers; the call's page follows its timeline to in-progress,
 * shows the greeting, hangs up, and offers its recording (or says there is none).
 */
test('add a number, call from the persona page, follow the call, hang up, its recording', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const email = newEmail('phone');
  const token = await devToken(email);
  const personaId = await draftPersona(token);
  const number = usNumber();
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, email, '/console/phone-numbers');
    await page.getByRole('radiogroup', { name: 'Environment' }).getByText('Test').click();
    await expect(page.getByRole('heading', { level: 1, name: 'Phone numbers' })).toBeVisible();
    await expect(page.getByText('No phone numbers in the test environment.')).toBeVisible();
    await addNumber(page, number);
    await expectCarrierSetup(page, number);
    await callFromPersonaPage(page, personaId, number);

    // the call's page follows it: ringing, then answered, its session greeting the callee
    await expect(page.getByRole('heading', { level: 1, name: /^Call call_/ })).toBeVisible();
    const timeline = page.getByTestId('call-timeline');
    await expect(timeline).toContainText('in-progress', { timeout: 30_000 });
    await expect(timeline).toContainText('queued');
    await expect(page.getByText('Hi, this is Ava from Homegoods. How can I help?')).toBeVisible({
      timeout: 30_000,
    });
    await expect(page.getByTestId('call-session-link')).toHaveAttribute('href', /\/console\/sessions\/sess_/);
    const callId = (await page.getByRole('heading', { level: 1 }).textContent())!.replace('Call ', '');
    await expect(page.getByTestId('call-temporal-link')).toHaveAttribute(
      'href',
      new RegExp(`/workflows/${callId}$`),
    );
    await expectAccessible(page, 'a call in progress');

    // hang up: the call completes, and its recording plays (or the page says there is none)
    await page.getByRole('button', { name: 'Hang up' }).click();
    await expect(timeline).toContainText('completed', { timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Hang up' })).toHaveCount(0);
    await expect(page.getByText('ended: hangup')).toBeVisible();
    await expectRecording(page);
    await expectCallListed(page, callId);
  } finally {
    await hangUpLeftovers(token);
  }
});

/**
 * A Telnyx number: its credentials (API key, public key, connection id) taken, never shown again;
 * its setup says where the inbound URL goes at Telnyx; a bad credential is refused on its field;
 * deleting it empties the list.
 */
test('a Telnyx number: its fields, where its inbound URL goes at Telnyx, delete', async ({ page }) => {
  const email = newEmail('telnyx');
  await draftPersona(await devToken(email));
  const apiKey = `KEY${randomBytes(16).toString('hex')}`;
  await signIn(page, email, '/console/phone-numbers');
  await page.getByRole('radiogroup', { name: 'Environment' }).getByText('Test').click();
  await page.getByRole('button', { name: 'Add number' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a phone number' });
  await dialog.getByRole('radiogroup', { name: 'Carrier' }).getByText('Telnyx').click();
  await dialog.getByRole('textbox', { name: 'Number' }).fill(usNumber());
  await dialog.getByLabel('API key').fill(apiKey);
  await dialog.getByRole('textbox', { name: 'Public key' }).fill('not a key');
  await dialog.getByRole('textbox', { name: 'Connection id' }).fill('1234567');
  await dialog.getByRole('button', { name: 'Add number' }).click();
  await expect(dialog.getByRole('alert')).toContainText('credentials.publicKey');
  await dialog.getByRole('textbox', { name: 'Public key' }).fill(randomBytes(32).toString('base64'));
  await dialog.getByRole('button', { name: 'Add number' }).click();
  await expect(dialog).toBeHidden();

  const setup = page.getByTestId('carrier-setup');
  await expect(setup.getByTestId('inbound-url')).toHaveText(/\/api\/v2\/telephony\/telnyx\/voice\/pn_/);
  await expect(setup).toContainText('Call Control Application');
  await expect(setup.getByTestId('status-callback-url')).toHaveCount(0);
  await expect(page.getByText(apiKey)).toHaveCount(0); // never shown
  await expectAccessible(page, 'a Telnyx number set up');

  await page.getByRole('button', { name: 'Delete' }).click();
  await page
    .getByRole('dialog', { name: 'Delete this number?' })
    .getByRole('button', { name: 'Delete number' })
    .click();
  await expect(page.getByText('No phone numbers in the test environment.')).toBeVisible();
});
