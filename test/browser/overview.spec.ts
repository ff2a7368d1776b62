import { expect, test } from '@playwright/test';
import { api, apiKey, devToken, expectAccessible, newEmail, signIn } from './support';

const number = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits });
/** What the overview cards show for each figure (web/src/pages/Overview.tsx). */
const shown = {
  totalApiCalls: (v: number) => number(v),
  uniqueUsers: (v: number) => number(v),
  activePersonas: (v: number) => number(v),
  errorRate: (v: number) => `${number(v * 100, 2)}%`,
  avgResponseTime: (v: number) => `${number(v, 1)} ms`,
};

test('the overview shows exactly the analytics API figures for known traffic, per period', async ({
  page,
}) => {
  const email = newEmail('overview');
  const key = await apiKey(email, 'live');
  for (let i = 0; i < 5; i++) {
    expect((await api('GET', '/api/v2/developers/secrets', { token: key })).status).toBe(200);
  }
  for (let i = 0; i < 2; i++) {
    expect((await api('GET', '/api/v2/developers/webhooks/wh_missing', { token: key })).status).toBe(404);
  }
  const token = await devToken(email);
  const overview = async (period: string) => {
    const res = await api('GET', `/api/v1/developers/analytics/overview?period=${period}&environment=live`, {
      token,
    });
    expect(res.status).toBe(200);
    return res.body.overview;
  };
  // calls are counted in memory and flushed every second
  await expect.poll(async () => (await overview('week')).totalApiCalls, { timeout: 10_000 }).toBe(7);
  const week = await overview('week');
  expect(week.errorRate).toBeCloseTo(2 / 7, 10);
  expect(week.totalApiCallsChange).toBe(1); // nothing in the previous week

  await signIn(page, email, '/console/');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  for (const [field, format] of Object.entries(shown)) {
    await expect(page.getByTestId(`value-${field}`)).toHaveText(format(week[field]));
    const change = week[`${field}Change`] as number;
    await expect(page.getByTestId(`card-${field}`).locator('[data-change]')).toHaveAttribute(
      'data-change',
      String(change),
    );
  }
  await expect(page.getByTestId('card-totalApiCalls')).toContainText('▲ +100%');
  const errors = await api('GET', '/api/v1/developers/analytics/errors?period=week', { token });
  const notFound = errors.body.errors.find((e: { code: string }) => e.code === 'NOT_FOUND');
  expect(notFound.count).toBe(2);
  await expect(page.getByTestId('top-errors').getByRole('row', { name: /NOT_FOUND/ })).toContainText('2');
  await expect(page.locator('.uplot canvas').first()).toBeVisible();
  await expectAccessible(page, 'overview');

  await page.getByRole('radiogroup', { name: 'Period' }).getByText('Day').click();
  const day = await overview('day');
  for (const [field, format] of Object.entries(shown)) {
    await expect(page.getByTestId(`value-${field}`)).toHaveText(format(day[field]));
  }
});
