import { expect, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { api, devToken, expectAccessible, newEmail, signIn, twilioAccount } from './support';

const headers = { 'X-Console-Environment': 'test' };

/** A valid US number no other test of the run has. */
const usNumber = () => `+1415556${String(1000 + Math.floor(Math.random() * 9000))}`;

/** A Twilio number on the double's account, in the test environment, answered by a draft persona. */
async function numberWithPersona(token: string): Promise<{ number: string; personaId: string }> {
  const manifest = completeManifest(`campaign-${Date.now().toString(36)}`);
  const persona = await api('POST', '/api/v1/developers/personas', { token, body: { manifest } });
  const personaId: string = persona.body.persona.id;
  const number = usNumber();
  const added = await api('POST', '/api/v2/developers/phone-numbers', {
    token,
    headers,
    body: { number, provider: 'twilio', name: 'Outbound line', personaId, credentials: twilioAccount() },
  });
  expect(added.status).toBe(201);
  return { number, personaId };
}

/**
 * The Campaigns page (issue 42 item 5): a campaign from a CSV checked as it is typed, started,
 * followed live, paused, resumed and canceled; each contact's calls link to their pages.
 */
test('a campaign from a CSV: checked as typed, started, followed, paused, resumed, canceled', async ({
  page,
}) => {
  const email = newEmail('campaigns');
  await signIn(page, email, '/console/campaigns');
  const token = await devToken(email);
  const { number } = await numberWithPersona(token);
  await page.getByRole('radiogroup', { name: 'Environment' }).getByText('Test').click();
  await expect(page.getByText('No campaigns yet.')).toBeVisible();

  await page.getByRole('button', { name: 'New campaign' }).click();
  const dialog = page.getByRole('dialog', { name: 'New campaign' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Spring renewals');
  await expect(dialog.getByRole('combobox', { name: 'From' })).toContainText(number);
  await expect(dialog.getByRole('combobox', { name: 'Persona' })).toContainText('Ava');
  const contacts = dialog.getByRole('textbox', { name: 'Contacts (CSV)' });
  await contacts.fill('to,name\n+14155550101,Sam\n4155550102,Alex\n+14155550103,Kim');
  await expect(dialog.getByTestId('contacts-problems')).toContainText(
    'row 3: "4155550102" is not an E.164 number',
  );
  await expect(dialog.getByRole('button', { name: 'Start campaign' })).toBeDisabled();
  await contacts.fill('to,name\n+14155550101,Sam\n+14155550102,Alex\n+14155550103,Kim');
  await expect(dialog.getByTestId('contacts-count')).toHaveText('3 contacts');
  await dialog.getByRole('textbox', { name: 'Calling from' }).fill('00:00');
  await dialog.getByRole('textbox', { name: 'Calling until' }).fill('23:59');
  await dialog.getByRole('textbox', { name: 'Calls at once' }).fill('1');
  await expectAccessible(page, 'new campaign dialog');
  await dialog.getByRole('button', { name: 'Start campaign' }).click();

  // the campaign's page: one call at once, followed live
  await expect(page.getByRole('heading', { name: 'Spring renewals' })).toBeVisible();
  await expect(page.getByTestId('campaign-progress')).toContainText('1 calling');
  const contactsTable = page.getByRole('table', { name: 'Contacts' });
  await expect(contactsTable.getByRole('link', { name: /#1 calling/ })).toHaveCount(1);
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
  await expect(page.getByText('paused', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel campaign' }).click();
  await expect(page.getByText('canceled', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Resume' })).toHaveCount(0);
  await expectAccessible(page, 'a canceled campaign');

  // a contact's call opens its page; the campaign is on the list
  await contactsTable.getByRole('link', { name: /#1/ }).first().click();
  await expect(page).toHaveURL(/\/calls\/call_/);
  const callId = page.url().split('/').pop()!;
  await api('POST', `/api/v2/developers/calls/${callId}/hangup`, { token, headers });
  await page.goto('/console/campaigns');
  await expect(page.getByRole('link', { name: 'Spring renewals' })).toBeVisible();
});
