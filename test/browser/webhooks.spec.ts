import { expect, test } from '@playwright/test';
import { type Receiver, startReceiver } from '../support/receiver';
import { api, apiKey, expectAccessible, newEmail, signIn } from './support';

let receiver: Receiver;
test.beforeAll(async () => {
  receiver = await startReceiver();
});
test.afterAll(async () => {
  await receiver.close();
});

test('create a webhook, send a test, see the delivery with its attempts; a retried event shows every attempt', async ({
  page,
}) => {
  const email = newEmail('webhooks');
  await signIn(page, email, '/console/webhooks');
  await expect(page.getByRole('heading', { name: 'Webhooks' })).toBeVisible();
  // the sandbox: sample events can be triggered there (with a pk_test_ key)
  await page.getByRole('radiogroup', { name: 'Environment' }).getByText('Test').click();
  await expect(page.getByText('(test environment)')).toBeVisible();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create a webhook' });
  await dialog.getByLabel('Name').fill('order events');
  await dialog.getByLabel('Endpoint URL').fill(receiver.url);
  await expectAccessible(page, 'create webhook dialog');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();

  const secretDialog = page.getByRole('dialog', { name: "Your webhook's signing secret" });
  await expect(secretDialog.getByTestId('secret')).toHaveText(/^whsec_/);
  await secretDialog.getByRole('button', { name: 'I stored it' }).click();
  await expect(page).toHaveURL(/\/console\/webhooks\/[^/]+$/);
  const webhookId = page.url().split('/').pop()!;
  await expect(page.getByRole('heading', { name: 'order events' })).toBeVisible();
  await expect(page.getByText('No deliveries yet')).toBeVisible();
  // nothing delivered yet: no average to show (not a mean of 0 ms)
  await expect(page.getByTestId('stat-avg-latency')).toHaveText('—');

  receiver.respond([], 200);
  const before = receiver.requests.length;
  await page.getByRole('button', { name: 'Send test' }).click();
  await expect(page.getByTestId('test-result')).toContainText('Test delivered');
  await expect(page.getByTestId('test-result')).toContainText('HTTP 200');
  expect(receiver.requests.length).toBe(before + 1);
  expect(JSON.parse(receiver.requests.at(-1)!.rawBody).type).toBe('webhook.test');

  const testRow = page.getByRole('row', { name: /webhook\.test/ });
  await expect(testRow).toContainText('delivered');
  await testRow.getByRole('button', { name: 'webhook.test' }).click();
  const attempts = page.getByTestId('attempts');
  await expect(attempts.getByRole('row')).toHaveCount(2); // header + one attempt
  await expect(attempts).toContainText('HTTP 200');
  // the delivery's workflow (its id is the delivery's) in the Temporal Web UI
  await expect(page.getByTestId('delivery-temporal-link')).toHaveAttribute(
    'href',
    /\/namespaces\/default\/workflows\/del_[A-Za-z0-9]+$/,
  );
  await expectAccessible(page, 'webhook with a delivery');

  // an event the endpoint refuses once: retried (1 s in tests), both attempts listed
  receiver.respond([503], 200);
  const key = await apiKey(email, 'test');
  const triggered = await api('POST', '/api/v2/developers/events/trigger', {
    token: key,
    body: { type: 'session.started', data: { sessionId: 'sess_browser', personaId: 'p', userId: 'u' } },
  });
  expect(triggered.status).toBeLessThan(300);
  const row = page.getByRole('row', { name: /session\.started/ });
  // the event reaches the delivery log through the outbox: refresh until it is there
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(row).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(row).toContainText('delivered', { timeout: 30_000 });
  await expect(row.getByRole('cell').nth(2)).toHaveText('2');
  await row.getByRole('button', { name: 'session.started' }).click();
  const both = page.getByTestId('attempts');
  await expect(both.getByRole('row')).toHaveCount(3);
  await expect(both.getByRole('row').nth(1)).toContainText('HTTP 503');
  await expect(both.getByRole('row').nth(2)).toContainText('HTTP 200');

  // retry it by hand: a new delivery of the same event
  await page.getByRole('button', { name: 'Retry delivery' }).click();
  await expect(page.getByText(/Retried as delivery/)).toBeVisible();
  await expect(page.getByRole('row', { name: /session\.started \(retry\)/ })).toContainText('delivered', {
    timeout: 30_000,
  });

  // rotate the secret: shown once
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = page.getByRole('dialog', { name: 'The new signing secret' });
  await expect(rotated.getByTestId('secret')).toHaveText(/^whsec_/);
  await rotated.getByRole('button', { name: 'I stored it' }).click();

  const stats = await api('GET', `/api/v2/developers/webhooks/${webhookId}`, { token: key });
  await expect(page.getByTestId('stat-deliveries')).toHaveText(String(stats.body.data.deliveryStats.total));
  // delivered now: a mean, with a decimal under 10 ms (the page's figure may predate the last delivery)
  expect(stats.body.data.deliveryStats.averageLatencyMs).toBeGreaterThan(0);
  await expect(page.getByTestId('stat-avg-latency')).toHaveText(/^(\d\.\d|\d|\d{2,}(,\d{3})*) ms$/);

  // a test the endpoint refuses says so until its delivery is retried by hand; then the log says how it went
  receiver.respond([500], 200);
  await page.getByRole('button', { name: 'Send test' }).click();
  await expect(page.getByTestId('test-result')).toContainText('Test not delivered');
  await page
    .getByRole('row', { name: /webhook\.test/ })
    .filter({ hasText: 'failed' })
    .getByRole('button', { name: 'webhook.test' })
    .click();
  await page.getByRole('button', { name: 'Retry delivery' }).click();
  await expect(page.getByTestId('test-result')).toBeHidden();
  const retried = page.getByRole('row', { name: /webhook\.test \(test\) \(retry\)/ });
  await expect(retried).toContainText(/delivered|failed/, { timeout: 30_000 });

  // a pending delivery (shown so here) is retried on its own schedule: no Retry for the API to refuse
  await page.route('**/api/v2/developers/webhooks/*/logs/del_*', async (route) => {
    const response = await route.fetch();
    const { data } = await response.json();
    await route.fulfill({ response, json: { data: { ...data, status: 'pending' } } });
  });
  await retried.getByRole('button', { name: 'webhook.test' }).click();
  await expect(page.getByTestId('retried-automatically')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Retry delivery' })).toHaveCount(0);
});

test("edit a webhook's name, URL, events and persona filter; the page offers receiver code to verify deliveries", async ({
  page,
}) => {
  const email = newEmail('webhook-edit');
  const key = await apiKey(email, 'live');
  const created = await api('POST', '/api/v2/developers/webhooks', {
    token: key,
    body: { name: 'first', url: 'https://example.com/hooks/a', events: ['session.started'] },
  });
  const id = created.body.data.id as string;
  await signIn(page, email, `/console/webhooks/${id}`);
  await page.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit the webhook' });
  await expect(dialog.getByLabel('Endpoint URL')).toHaveValue('https://example.com/hooks/a');
  await dialog.getByLabel('Name').fill('renamed');
  await dialog.getByLabel('Endpoint URL').fill('https://example.com/hooks/b');
  await dialog.getByRole('checkbox', { name: 'session.ended' }).check();
  await expectAccessible(page, 'edit webhook dialog');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('heading', { name: 'renamed' })).toBeVisible();
  await expect(page.getByText('https://example.com/hooks/b')).toBeVisible();
  const saved = (await api('GET', `/api/v2/developers/webhooks/${id}`, { token: key })).body.data;
  expect(saved).toMatchObject({ name: 'renamed', url: 'https://example.com/hooks/b', personaId: null });
  expect(saved.events.sort()).toEqual(['session.ended', 'session.started']);

  // a refused edit says why and changes nothing
  await page.getByRole('button', { name: 'Edit' }).click();
  await dialog.getByLabel('Endpoint URL').fill('ftp://example.com/x');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toContainText('url');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect((await api('GET', `/api/v2/developers/webhooks/${id}`, { token: key })).body.data.url).toBe(
    'https://example.com/hooks/b',
  );

  const snippet = page.getByTestId('verify-snippet');
  await expect(snippet).toContainText("createHmac('sha256'");
  await page.getByRole('radiogroup', { name: 'Language' }).getByText('Python').click();
  await expect(snippet).toContainText('hmac.compare_digest');
});

test('a failing webhook shows its countdown to disabling; Recover re-sends the event it missed', async ({
  page,
}) => {
  const email = newEmail('webhook-heal');
  const key = await apiKey(email, 'test');
  const receiver = await startReceiver();
  try {
    receiver.respond([], 500); // every attempt fails until the receiver is fixed
    const created = await api('POST', '/api/v2/developers/webhooks', {
      token: key,
      body: { name: 'flaky', url: receiver.url, events: ['session.started'] },
    });
    const id = created.body.data.id as string;
    const triggered = await api('POST', '/api/v2/developers/events/trigger', {
      token: key,
      body: { type: 'session.started' },
    });
    const eventId = triggered.body.data.event.id as string;
    // its delivery fails every attempt (the tests' short schedule): the webhook is failing
    await expect(async () => {
      const hook = (await api('GET', `/api/v2/developers/webhooks/${id}`, { token: key })).body.data;
      expect(hook.status).toBe('failing');
    }).toPass({ timeout: 60_000 });

    await signIn(page, email, '/console/webhooks');
    await page.getByRole('radiogroup', { name: 'Environment' }).getByText('Test').click();
    await page.getByRole('link', { name: 'flaky' }).click();
    const countdown = page.getByTestId('disable-countdown');
    await expect(countdown).toContainText('Attempts are failing');
    await expect(countdown).toContainText(/disabled in \d+ d \d+ h/);
    await expectAccessible(page, 'failing webhook');

    // the receiver is fixed: Recover sends the missed event again, once, under its own id
    receiver.respond([], 200);
    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Recover missed events' }).click();
    await expect(page.getByTestId('recovery-progress')).toContainText('1 of 1 sent', { timeout: 60_000 });
    await expect(() => expect(receiver.requests.length).toBe(before + 1)).toPass({ timeout: 30_000 });
    expect(JSON.parse(receiver.requests.at(-1)!.rawBody).id).toBe(eventId);
  } finally {
    await receiver.close();
  }
});
