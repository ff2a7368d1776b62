import { expect, test } from '@playwright/test';
import { publishedPersona } from './seed';
import { api, apiKey, devToken, expectAccessible, newEmail, signIn } from './support';

const OK = (res: { status: number; body: any }, what: string) => {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
};

/**
 * The sessions log: each session's persona by name, its duration, end reason and turn count; filters
 * by persona, user and words said; a live session ended from its page, which links to its workflow
 * in the Temporal Web UI.
 */
test('sessions log: names, durations, end reasons, filters, transcript search, ending a live session', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const email = newEmail('sessions');
  const token = await devToken(email);
  const key = await apiKey(email, 'live');
  const v2 = async (method: string, path: string, body?: unknown) =>
    OK(await api(method, `/api/v2/developers${path}`, { token: key, body }), `${method} ${path}`);
  const shop = await publishedPersona(token, `shop-${Date.now().toString(36)}`);
  const ended = await v2('POST', '/sessions', { personaId: shop, userId: 'caller-ended' });
  await v2('POST', `/sessions/${ended.id}/turns`, { text: 'where is my parcel' });
  await v2('POST', `/sessions/${ended.id}/end`, {});
  const live = await v2('POST', '/sessions', { personaId: shop, userId: 'caller-live' });
  await v2('POST', `/sessions/${live.id}/turns`, { text: 'hello there' });
  await v2('POST', `/sessions/${live.id}/turns`, { text: 'tell me more' });

  await signIn(page, email, '/console/sessions');
  const table = page.getByRole('table', { name: 'Sessions' });
  const endedRow = table.getByRole('row').filter({ hasText: ended.id });
  await expect(endedRow).toContainText('Ava'); // the persona's name, not its id
  await expect(endedRow).toContainText('ended'); // its end reason
  await expect(endedRow).toContainText(/\d+ s/); // its duration
  await expect(endedRow.getByRole('cell').last()).toHaveText('1');
  const liveRow = table.getByRole('row').filter({ hasText: live.id });
  await expect(liveRow).toContainText('so far');
  await expect(liveRow.getByRole('cell').last()).toHaveText('2');
  await expectAccessible(page, 'sessions with filters');

  // the user filter, then the transcript search, each narrowing the list on the server
  await page.getByLabel('User').fill('caller-live');
  await expect(table.getByRole('row').filter({ hasText: ended.id })).toHaveCount(0);
  await expect(liveRow).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(endedRow).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search transcripts' }).fill('PARCEL');
  await expect(table.getByRole('row').filter({ hasText: live.id })).toHaveCount(0);
  await expect(endedRow).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search transcripts' }).fill('no such words anywhere');
  await expect(page.getByText('No session matches these filters.')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  // a day range that ends before today: nothing; the persona filter keeps both
  await page.getByLabel('To').fill('2020-01-01');
  await expect(page.getByText('No session matches these filters.')).toBeVisible();
  await page.getByLabel('To').fill('');
  await page.getByLabel('Persona').selectOption({ label: 'Ava' });
  await expect(table.getByRole('row')).toHaveCount(3); // the header and two sessions

  // the live session's page: its workflow in Temporal, and ending it
  await liveRow.getByRole('link', { name: live.id }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Session ${live.id}` })).toBeVisible();
  await expect(page.getByTestId('session-temporal-link')).toHaveAttribute(
    'href',
    new RegExp(`/workflows/${live.id}$`),
  );
  await expect(page.getByText('2 turns')).toBeVisible();
  await page.getByRole('button', { name: 'End session' }).click();
  await expect(page.getByRole('button', { name: 'End session' })).toHaveCount(0);
  await expect(page.getByText('(ended)')).toBeVisible();
  const after = OK(await api('GET', `/api/v2/developers/sessions/${live.id}`, { token: key }), 'session');
  expect(after).toMatchObject({ status: 'ended', endReason: 'ended', turnCount: 2 });
});
