import { expect, test } from '@playwright/test';
import { type McpTestServer, startMcpTestServer } from '../support/mcp-test-server';
import { publishedTool } from './seed';
import { api, devToken, expectAccessible, newEmail, signIn } from './support';

let mcp: McpTestServer;
test.beforeAll(async () => {
  mcp = await startMcpTestServer();
});
test.afterAll(async () => {
  await mcp.close();
});

test("marketplace: find a tool, install it with its permissions, see it installed, uninstall; publisher items and an item's analytics", async ({
  page,
}) => {
  const email = newEmail('market');
  const token = await devToken(email);
  const me = (await api('GET', '/api/v1/developers/me', { token })).body;
  const toolId = `sum-${Date.now().toString(36)}`;
  await publishedTool({ id: me.publisherId, name: 'Browser Tests Inc' }, toolId, mcp.url);

  await signIn(page, email, '/console/marketplace');
  await expect(page.getByRole('heading', { name: 'Marketplace' })).toBeVisible();
  await page.getByLabel('Search').fill('sum machine');
  const card = page.getByTestId(`market-item-${toolId}`);
  await expect(card).toBeVisible();
  await expect(card).toContainText('Browser Tests Inc');
  await expectAccessible(page, 'marketplace browse');

  await card.getByRole('button', { name: 'Install' }).click();
  const dialog = page.getByRole('dialog', { name: 'Install Sum Machine' });
  await expect(dialog.getByRole('checkbox', { name: 'math:compute' })).toBeChecked();
  await expectAccessible(page, 'install dialog');
  await dialog.getByRole('button', { name: 'Install' }).click();
  await expect(dialog.getByRole('status')).toContainText('Installed');
  await dialog.getByRole('button', { name: 'Close' }).first().click();

  await page.getByRole('tab', { name: 'Installed' }).click();
  await expect(page).toHaveURL(/tab=installed/);
  const row = page.getByRole('row', { name: /Sum Machine/ });
  await expect(row).toContainText('active');
  await expect(row).toContainText('math:compute');
  const listed = await api('GET', '/api/marketplace/install/list', {
    headers: { 'x-user-id': me.publisherId },
  });
  expect(listed.body.installations.map((i: { itemId: string }) => i.itemId)).toContain(toolId);
  await expectAccessible(page, 'marketplace installed');
  await row.getByRole('button', { name: 'Uninstall Sum Machine' }).click();
  await expect(page.getByRole('row', { name: /Sum Machine/ })).toHaveCount(0);

  await page.getByRole('tab', { name: 'Publishing' }).click();
  // the console identifies as the signed-in account: its publisher id, its email as the name
  await expect(page.getByText(`Publishing as ${email} (${me.publisherId})`)).toBeVisible();
  const item = page.getByRole('row', { name: /Sum Machine/ });
  await expect(item).toContainText('approved');
  await item.getByRole('link', { name: 'Sum Machine' }).click();
  await expect(page).toHaveURL(new RegExp(`/console/marketplace/publishing/${toolId}$`));
  const analytics = page.getByTestId('item-analytics');
  await expect(analytics).toContainText(`Analytics of ${toolId}`);
  const figures = await api('GET', `/api/marketplace/publisher/${toolId}/analytics?period=30d`, {
    headers: { 'x-publisher-id': me.publisherId, 'x-publisher-name': 'Browser Tests Inc' },
  });
  await expect(analytics).toContainText(`Installs${figures.body.metrics.totalInstalls}`);
  await expectAccessible(page, 'marketplace publishing');
});
