import { expect, type Page, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { api, apiKey, devToken, expectAccessible, newEmail, signIn, TEST_ADMIN_TOKEN } from './support';

const OK = (res: { status: number; body: any }, what: string) => {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** A persona of the account of `email`, submitted for review through the console API: its id. */
async function submittedPersona(email: string, slug: string): Promise<string> {
  const token = await devToken(email);
  const manifest = completeManifest(slug);
  const created = OK(
    await api('POST', '/api/v1/developers/personas', { token, body: { manifest } }),
    'persona',
  );
  const id = created.persona.id as string;
  OK(await api('POST', `/api/v1/developers/personas/${id}/submit`, { token }), 'submit');
  return id;
}

/** A session with the persona on a `pk_live_` key: 201 once it is approved, 409 before. */
const liveSession = (key: string, personaId: string) =>
  api('POST', '/api/v2/developers/sessions', { token: key, body: { personaId, userId: 'caller-1' } });

/** Opens the persona's review from the queue and approves it with notes. */
async function approveFromQueue(page: Page, personaId: string, notes: string): Promise<void> {
  const row = page.getByTestId(`review-${personaId}`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId('due-timer')).toContainText(/Overdue in \d+ d/);
  await row.getByRole('link', { name: 'Ava' }).click();
  await expect(page).toHaveURL(new RegExp(`/console/reviews/review-${personaId}-1$`));
  await expect(page.getByRole('heading', { name: 'Ava', level: 1 })).toBeVisible();
  await expect(page.getByTestId('automated-results')).toContainText('No tests');
  await expect(page.getByTestId('submitted-manifest')).toContainText('"voice_id"');
  await expect(page.getByTestId('due-timer')).toContainText('Overdue in');
  await page.getByLabel('Notes').fill(notes);
  await page.getByRole('button', { name: 'Approve' }).click();
  const outcome = page.getByTestId('review-outcome');
  await expect(outcome).toContainText('Review approved');
  await expect(outcome).toContainText(notes);
}

test('the operator signs in with the admin token, approves a persona from the review queue, and it answers a live key', async ({
  page,
}) => {
  const email = newEmail('reviewed');
  const slug = `queue-${Date.now().toString(36)}`;
  const personaId = await submittedPersona(email, slug);
  const liveKey = await apiKey(email, 'live');
  expect((await liveSession(liveKey, personaId)).status).toBe(409);

  await page.goto('/console/reviews');
  await expect(page).toHaveURL(/\/console\/sign-in/);
  await page.getByRole('link', { name: 'Operator? Sign in with the admin token' }).click();
  await expect(page).toHaveURL(/\/console\/operator\/sign-in/);
  await page.getByLabel('Admin token').fill(`${TEST_ADMIN_TOKEN}-wrong`);
  await page.getByRole('button', { name: 'Sign in as operator' }).click();
  await expect(page.getByRole('alert')).toContainText('Invalid admin token');
  await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in as operator' }).click();

  await expect(page).toHaveURL(/\/console\/reviews$/);
  await expect(page.getByRole('heading', { name: 'Reviews', level: 1 })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Console sections' }).getByRole('link')).toHaveText([
    'Reviews',
  ]);
  await expect(page.getByRole('table', { name: 'Pending persona reviews' })).toBeVisible();
  // the token is kept for this tab only
  const stored = await page.evaluate(() => ({
    session: sessionStorage.getItem('vp.console.operatorToken'),
    local: JSON.stringify(localStorage),
  }));
  expect(stored.session).toBe(JSON.stringify(TEST_ADMIN_TOKEN));
  expect(stored.local).not.toContain(TEST_ADMIN_TOKEN);
  await expectAccessible(page, 'review queue');

  await approveFromQueue(page, personaId, 'Clear and on brand.');
  await expectAccessible(page, 'a decided review');
  // on a phone: the page fits the screen, no sideways scrolling
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId('review-outcome')).toBeVisible();
  const sideways = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  expect(sideways).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 800 });
  const persona = OK(
    await api('GET', `/api/v1/developers/personas/${personaId}`, { token: await devToken(email) }),
    'persona',
  ).persona;
  expect(persona).toMatchObject({ status: 'published', review: { notes: 'Clear and on brand.' } });
  const session = await liveSession(liveKey, personaId);
  expect(session.status).toBe(201);
  expect(session.body.data).toMatchObject({ personaId, personaVersion: 1 });

  await page.getByRole('link', { name: '← Reviews' }).click();
  await expect(page.getByTestId(`review-${personaId}`)).toHaveCount(0);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/console\/operator\/sign-in/);
  expect(await page.evaluate(() => sessionStorage.getItem('vp.console.operatorToken'))).toBeNull();
});

test('"Reviews" is in the navigation of reviewers only; a reviewer approves from the queue with their own sign-in', async ({
  page,
}) => {
  const email = newEmail('reviewer');
  await signIn(page, email, '/console/');
  const nav = page.getByRole('navigation', { name: 'Console sections' });
  await expect(nav.getByRole('link', { name: 'Personas' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Reviews' })).toHaveCount(0);
  // the queue itself refuses a console user who is not a reviewer
  await page.goto('/console/reviews');
  await expect(page.getByText(/may use the review endpoints/)).toBeVisible();

  const { publisherId } = OK(
    await api('GET', '/api/v1/developers/me', { token: await devToken(email) }),
    'me',
  );
  OK(
    await api('PUT', `/api/admin/accounts/${publisherId}/reviewer`, {
      token: TEST_ADMIN_TOKEN,
      body: { reviewer: true },
    }),
    'mark reviewer',
  );
  const developer = newEmail('reviewed');
  const personaId = await submittedPersona(developer, `queue-${Date.now().toString(36)}`);
  await page.goto('/console/');
  await nav.getByRole('link', { name: 'Reviews' }).click();
  await expect(page.getByRole('heading', { name: 'Reviews', level: 1 })).toBeVisible();
  await approveFromQueue(page, personaId, 'Approved by a reviewer.');
  const liveKey = await apiKey(developer, 'live');
  expect((await liveSession(liveKey, personaId)).status).toBe(201);
});
