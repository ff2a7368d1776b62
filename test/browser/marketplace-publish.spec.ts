import { expect, type Page, test } from '@playwright/test';
import { type McpTestServer, startMcpTestServer } from '../support/mcp-test-server';
import { api, devToken, expectAccessible, newEmail, signIn, TEST_ADMIN_TOKEN } from './support';

let mcp: McpTestServer;
test.beforeAll(async () => {
  mcp = await startMcpTestServer();
});
test.afterAll(async () => {
  await mcp.close();
});

/** axe-core on the page as it is, at 1280 px and at 390 px wide (where it must not scroll sideways); then back to 1280. */
async function accessibleAtBothWidths(page: Page, label: string) {
  await expectAccessible(page, `${label} at 1280 px`);
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, `${label} at 390 px`);
  const sideways = await page.evaluate(`document.documentElement.scrollWidth - window.innerWidth`);
  expect(sideways, `${label} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** The operator's decision on the item's version under review (the admin review endpoint). */
async function decide(itemId: string, decision: 'approve' | 'reject', notes: string) {
  const res = await api('POST', `/api/admin/marketplace/items/${itemId}/review`, {
    token: TEST_ADMIN_TOKEN,
    body: { decision, notes },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A manifest typed into the publish form's editor. */
async function typeManifest(page: Page, manifest: unknown) {
  await page.getByLabel('Manifest (JSON)').fill(JSON.stringify(manifest, null, 2));
}

async function account(label: string) {
  const email = newEmail(label);
  const token = await devToken(email);
  const me = (await api('GET', '/api/v1/developers/me', { token })).body;
  return { email, publisherId: me.publisherId as string };
}

function toolManifest(publisher: { publisherId: string; email: string }, id: string) {
  return {
    id,
    name: 'Form Adder',
    version: '1.0.0',
    publisher: { id: publisher.publisherId, name: publisher.email },
    description: {
      short: 'Adds two numbers',
      long: 'Adds two numbers for your agent, published from the console.',
    },
    execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcp.url, toolName: 'add' },
    interface: { llmDescription: 'Adds a and b' },
    permissions: ['math:compute'],
    quotas: { free: 5 },
    changelog: 'First release.',
  };
}

test('publish a marketplace tool through the form and see it installed after approval', async ({ page }) => {
  test.setTimeout(120_000);
  const me = await account('publish');
  const toolId = `form-add-${Date.now().toString(36)}`;
  await signIn(page, me.email, '/console/marketplace');
  await page.getByRole('link', { name: 'Publish a tool or agent' }).click();
  await expect(page.getByRole('heading', { name: 'Publish a tool or agent' })).toBeVisible();
  const verdict = page.getByTestId('manifest-verdict');

  // validated as you type, by the server's rules
  await typeManifest(page, { ...toolManifest(me, toolId), version: 'v1' });
  await expect(verdict).toContainText('manifest.version: must be a semantic version');
  await expect(page.getByRole('button', { name: 'Submit for review' })).toBeDisabled();
  await page.getByLabel('Manifest (JSON)').fill('{ "id": ');
  await expect(verdict).toContainText('The JSON does not parse');
  await typeManifest(page, toolManifest(me, toolId));
  await expect(verdict).toContainText('Ready to submit');
  await expect(verdict).toContainText('pricing: none given');
  await accessibleAtBothWidths(page, 'publish form');
  await page.getByRole('button', { name: 'Submit for review' }).click();

  // the review's progress: the checks' findings at once, then the operator's decision as it lands
  await expect(page).toHaveURL(new RegExp(`/console/marketplace/publishing/${toolId}$`));
  const review = page.getByTestId('review-progress');
  await expect(review).toContainText('Automated checks: passed');
  await expect(review).toContainText('MCP check passed');
  await expect(review).toContainText('waiting for an operator');
  await accessibleAtBothWidths(page, 'published item in review');
  await decide(toolId, 'approve', 'Works as described');
  await expect(review).toContainText('approved', { timeout: 30_000 });
  await expect(review).toContainText('Operator’s notes: Works as described');

  // its page in the marketplace: install it
  await page.getByRole('link', { name: 'Its page in the marketplace' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Form Adder' })).toBeVisible();
  await page.getByRole('button', { name: 'Install' }).click();
  const dialog = page.getByRole('dialog', { name: 'Install Form Adder' });
  await dialog.getByRole('button', { name: 'Install' }).click();
  await expect(dialog.getByRole('status')).toContainText('Installed');
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  const installation = page.getByRole('region', { name: 'Your installation' });
  await expect(installation).toContainText('granting math:compute');
  await expect(installation).toContainText('0 of 5 runs this month');

  // a run (as a voice session's tool call would make it) shows in the quota use
  const run = await api('POST', `/api/marketplace/execute/${toolId}`, {
    headers: { 'x-user-id': me.publisherId, 'x-subscription-tier': 'free' },
    body: { arguments: { a: 2, b: 3 } },
  });
  expect(run.body.success).toBe(true);
  await page.goto('/console/marketplace?tab=installed');
  await expect(page.getByRole('row', { name: /Form Adder/ })).toContainText('1 of 5 runs this month');
});

test('an item page (versions, publisher, permissions, quotas), uninstall from browse, a new version, remove and restore', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const me = await account('versions');
  const toolId = `form-ver-${Date.now().toString(36)}`;
  const headers = { 'x-publisher-id': me.publisherId, 'x-publisher-name': me.email };
  const submitted = await api('POST', '/api/marketplace/publisher/submit', {
    headers,
    body: { type: 'tool', manifest: toolManifest(me, toolId) },
  });
  expect(submitted.status).toBe(200);
  await decide(toolId, 'approve', 'ok');

  // a new version through the form, starting from the live manifest with the next patch version
  await signIn(page, me.email, `/console/marketplace/publishing/${toolId}`);
  await page.getByRole('link', { name: 'New version' }).click();
  await expect(page.getByRole('heading', { name: 'New version of Form Adder' })).toBeVisible();
  const editor = page.getByLabel('Manifest (JSON)');
  const draft = JSON.parse(await editor.inputValue());
  expect(draft.version).toBe('1.0.1');
  await expect(page.getByTestId('manifest-verdict')).toContainText('manifest.changelog');
  await typeManifest(page, { ...draft, version: '1.0.0', changelog: 'Faster sums.' });
  await expect(page.getByTestId('manifest-verdict')).toContainText('must be greater than the latest');
  await typeManifest(page, { ...draft, changelog: 'Faster sums.' });
  await expect(page.getByTestId('manifest-verdict')).toContainText('Ready to submit');
  await accessibleAtBothWidths(page, 'new version form');
  await page.getByRole('button', { name: 'Submit the new version for review' }).click();
  await expect(page.getByRole('heading', { name: 'Review of version 1.0.1' })).toBeVisible();
  await expect(page.getByText('Version 1.0.0 is live; 1.0.1 is in review.')).toBeVisible();
  await decide(toolId, 'approve', 'Still adds');
  await expect(page.getByTestId('review-progress')).toContainText('approved', { timeout: 30_000 });
  await expect(page.getByRole('row', { name: /1\.0\.0/ })).toContainText('superseded');

  // the item page: description, versions with their changelogs, publisher, permissions, quotas per plan
  await page.goto(`/console/marketplace/tools/${toolId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Form Adder' })).toBeVisible();
  await expect(page.getByText('Adds two numbers for your agent, published from the console.')).toBeVisible();
  const versions = page.getByTestId('item-versions');
  await expect(versions).toContainText('1.0.1');
  await expect(versions).toContainText('Faster sums.');
  await expect(versions).toContainText('First release.');
  await expect(page.getByRole('region', { name: 'Publisher' })).toContainText(me.email);
  await expect(page.getByRole('region', { name: 'Permissions' })).toContainText('math:compute');
  const quotas = page.getByRole('table', { name: 'Quotas per plan' });
  await expect(quotas.getByRole('row', { name: /free/ })).toContainText('5');
  await expect(quotas.getByRole('row', { name: /free/ })).toContainText('your plan');
  await expect(quotas.getByRole('row', { name: /enterprise/ })).toContainText('1,000,000');
  await accessibleAtBothWidths(page, 'item page');

  // installed from the item page, it shows as installed in browse; uninstall there
  await page.getByRole('button', { name: 'Install' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Install' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).first().click();
  await expect(page.getByRole('region', { name: 'Your installation' })).toBeVisible();
  await accessibleAtBothWidths(page, 'item page, installed');
  await page.goto('/console/marketplace');
  await page.getByLabel('Search').fill('"published from the console"');
  const card = page.getByTestId(`market-item-${toolId}`);
  await expect(card.getByRole('link', { name: 'Installed' })).toBeVisible();
  await accessibleAtBothWidths(page, 'browse with an installed item');
  await card.getByRole('button', { name: 'Uninstall Form Adder' }).click();
  await expect(card.getByRole('button', { name: 'Install Form Adder' })).toBeVisible();
  await expect(card.getByRole('link', { name: 'Installed' })).toHaveCount(0);

  // remove, then restore within the grace period
  await page.goto(`/console/marketplace/publishing/${toolId}`);
  await page.getByRole('button', { name: 'Remove from the marketplace' }).click();
  await page
    .getByRole('dialog', { name: 'Remove Form Adder?' })
    .getByRole('button', { name: 'Remove' })
    .click();
  await expect(page.getByText('Scheduled for removal: out of browse')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'scheduled for removal' })).toBeVisible();
  await accessibleAtBothWidths(page, 'item scheduled for removal');
  const browse = await api('GET', `/api/marketplace/browse/tools/${toolId}`);
  expect(browse.status).toBe(404);
  await page.getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'is restored' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Remove from the marketplace' })).toBeVisible();
  expect((await api('GET', `/api/marketplace/browse/tools/${toolId}`)).status).toBe(200);
});
