import { expect, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { api, devToken, expectAccessible, newEmail, signIn } from './support';

/**
 * The persona form's Telephony section (issue 42 item 5): transfer destinations, the keypad, the
 * closing line, the voicemail message and the calls' maximum duration, saved into the manifest's `telephony`, a bad destination
 * refused on its own input.
 */
test('the Telephony section edits transfer destinations, the keypad, the closing line and voicemail', async ({
  page,
}) => {
  const email = newEmail('persona-telephony');
  await signIn(page, email, '/console/personas');
  const token = await devToken(email);
  const manifest = completeManifest(`ava-phone-${Date.now().toString(36)}`);
  const created = await api('POST', '/api/v1/developers/personas', { token, body: { manifest } });
  const id: string = created.body.persona.id;
  await page.goto(`/console/personas/${id}`);
  const section = page.getByRole('group', { name: 'Telephony' });
  await expect(section).toBeVisible();

  await section.getByRole('button', { name: 'Add a destination' }).click();
  await section.getByRole('textbox', { name: 'Destination 1', exact: true }).fill('12345');
  await section.getByRole('textbox', { name: 'Destination 1 name' }).fill('Billing desk');
  await section.getByRole('textbox', { name: 'Destination 1 description' }).fill('Invoices and refunds');
  // the server refuses the number, and says so on its input
  await expect(page.getByTestId('save-state')).toHaveText('Not saved');
  const destination = section.getByRole('textbox', { name: 'Destination 1', exact: true });
  await expect(destination).toHaveAttribute('aria-invalid', 'true');
  await expect(destination).toHaveAccessibleDescription(/E\.164/);
  await destination.fill('+14155550188');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect(destination).not.toHaveAttribute('aria-invalid', 'true');

  await section.getByRole('combobox', { name: 'Keypad: end of entry' }).click();
  await page.getByRole('option', { name: '* (star)' }).click();
  await section.getByRole('textbox', { name: /^Keypad: pause/ }).fill('3000');
  await section.getByRole('textbox', { name: /^Max call duration/ }).fill('900');
  await section.getByRole('textbox', { name: /^Closing line/ }).fill('Thanks for calling Homegoods.');
  await section
    .getByRole('textbox', { name: /^Voicemail message/ })
    .fill('Hi {{name}}, this is Ava from Homegoods. Please call us back.');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expectAccessible(page, 'persona form with its Telephony section filled');

  const saved = await api('GET', `/api/v1/developers/personas/${id}`, { token });
  expect(saved.body.persona.manifest.telephony).toEqual({
    transferDestinations: [
      { destination: '+14155550188', name: 'Billing desk', description: 'Invoices and refunds' },
    ],
    keypad: { terminator: '*', timeoutMs: 3000 },
    maxDurationS: 900,
    closingLine: 'Thanks for calling Homegoods.',
    voicemailMessage: 'Hi {{name}}, this is Ava from Homegoods. Please call us back.',
  });
});
