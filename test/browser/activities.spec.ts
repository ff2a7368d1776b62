import { expect, test } from '@playwright/test';
import { api, apiKey, devToken, expectAccessible, newEmail, signIn, TEST_ADMIN_TOKEN } from './support';

const day = (daysAgo: number, hour = 12) => {
  const d = new Date(Date.now() - daysAgo * 86_400_000);
  d.setUTCHours(hour, 0, 0, 0);
  return d.toISOString();
};

test('activities: the log filtered by type, user and date; statistics by day (a chart), by type and a metric', async ({
  page,
}) => {
  const email = newEmail('activities');
  const me = await api('GET', '/api/v1/developers/me', { token: await devToken(email) });
  await api('PUT', `/api/admin/accounts/${me.body.publisherId}/plan`, {
    token: TEST_ADMIN_TOKEN,
    body: { plan: 'enterprise' },
  });
  const key = await apiKey(email, 'live');
  const logged = [
    { type: 'order.placed', userId: 'user-1', payload: { amount: 40 }, occurredAt: day(3) },
    { type: 'order.placed', userId: 'user-2', payload: { amount: 60 }, occurredAt: day(1) },
    { type: 'order.placed', userId: 'user-1', payload: { amount: 20 }, occurredAt: day(0, 0) },
    { type: 'call.rated', userId: 'user-2', payload: { rating: 5 }, occurredAt: day(1) },
  ];
  for (const body of logged) {
    const res = await api('POST', '/api/v2/developers/activities', { token: key, body });
    expect(res.status).toBe(201);
  }

  await signIn(page, email, '/console/activities');
  await expect(page.getByRole('heading', { name: 'Activities', level: 1 })).toBeVisible();
  await expect(page.getByTestId('activity-count')).toHaveText('4 activities');
  await expect(page.getByTestId('activity-stats-total')).toContainText('4 activities from');
  await expect(page.getByRole('img', { name: /Activities a day/ })).toBeVisible();
  await expectAccessible(page, 'activities page at 1280 px');
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, 'activities page at 390 px');
  await page.setViewportSize({ width: 1280, height: 800 });

  const filters = page.getByRole('search', { name: 'Filter activities' });
  await filters.getByLabel('Type').fill('order.placed');
  await expect(page.getByTestId('activity-count')).toHaveText('3 activities');
  await filters.getByLabel('User').fill('user-1');
  await expect(page.getByTestId('activity-count')).toHaveText('2 activities');
  await expect(page.getByTestId('activity-stats-total')).toContainText('2 activities from');
  await filters.getByLabel('From (UTC day)').fill(day(1).slice(0, 10));
  await expect(page.getByTestId('activity-count')).toHaveText('1 activity');
  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page.getByTestId('activity-count')).toHaveText('4 activities');

  // by type, with the payload's amount summed
  await page.getByRole('radiogroup', { name: 'Group by' }).getByText('By type').click();
  const bars = page.getByTestId('activity-bars');
  await expect(bars.getByRole('progressbar', { name: 'order.placed: 3' })).toBeVisible();
  await expect(bars.getByRole('progressbar', { name: 'call.rated: 1' })).toBeVisible();
  await page.getByLabel('Metric (payload path)').fill('amount');
  await expect(page.getByTestId('activity-stats-total')).toContainText('amount: sum 120, average 40');
  await page.getByText('Statistics as a table').click();
  await expect(
    page.getByRole('table', { name: 'Activity statistics' }).getByRole('row', { name: /order\.placed/ }),
  ).toContainText('120');
  await expectAccessible(page, 'activities statistics by type at 1280 px');
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, 'activities statistics by type at 390 px');
});
