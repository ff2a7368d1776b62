import { expect, type Page, test } from '@playwright/test';
import { type McpTestServer, startMcpTestServer } from '../support/mcp-test-server';
import { type Receiver, startReceiver } from '../support/receiver';
import { api, devToken, expectAccessible, newEmail, signIn, TEST_ADMIN_TOKEN } from './support';

let mcp: McpTestServer;
let receiver: Receiver;
test.beforeAll(async () => {
  mcp = await startMcpTestServer({ requireHeader: ['x-api-key', 'mcp-key-123'] });
  receiver = await startReceiver();
});
test.afterAll(async () => {
  await mcp.close();
  await receiver.close();
});

/** A fresh account on the enterprise plan: each page is judged at two widths, more calls than the free plan's minute allows. */
async function account(label: string): Promise<string> {
  const email = newEmail(label);
  const token = await devToken(email);
  const me = await api('GET', '/api/v1/developers/me', { token });
  const plan = await api('PUT', `/api/admin/accounts/${me.body.publisherId}/plan`, {
    token: TEST_ADMIN_TOKEN,
    body: { plan: 'enterprise' },
  });
  expect(plan.status).toBe(200);
  return email;
}

/** axe-core at 1280 px, then at 390 px (the phone layout), back to 1280. */
async function expectAccessibleAtBothWidths(page: Page, label: string): Promise<void> {
  await expectAccessible(page, `${label} at 1280 px`);
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, `${label} at 390 px`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('register an MCP server with a secret header and see its tools with their schemas', async ({ page }) => {
  const email = await account('mcp');
  // the header's value is a stored secret
  const secret = await api('PUT', '/api/v2/developers/secrets/MCP_KEY', {
    token: await devToken(email),
    headers: { 'X-Console-Environment': 'live' },
    body: { value: 'mcp-key-123' },
  });
  expect(secret.status).toBe(201);
  await signIn(page, email, '/console/tools');
  await expect(page.getByRole('heading', { name: 'MCP servers' })).toBeVisible();
  await expect(page.getByText('No MCP servers in the live environment.')).toBeVisible();
  await expectAccessibleAtBothWidths(page, 'tools page, MCP servers tab');
  await page.getByRole('button', { name: 'Register MCP server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Register an MCP server' });
  await dialog.getByLabel('Name').fill('orders');
  await dialog.getByLabel('Endpoint URL').fill(mcp.url);
  await expect(dialog.getByText(/Values may use \{\{secrets\.NAME\}\}/)).toBeVisible();
  await dialog.getByRole('button', { name: 'Add header' }).click();
  await dialog.getByLabel('Header 1 name').fill('X-Api-Key');
  await dialog.getByLabel('Header 1 value').fill('{{secrets.MCP_KEY}}');
  await expectAccessible(page, 'register MCP server dialog');
  await dialog.getByRole('button', { name: 'Register server' }).click();

  await expect(page).toHaveURL(/\/console\/tools\/mcp-servers\/mcp_[A-Za-z0-9]+$/);
  await expect(page.getByRole('heading', { name: 'orders' })).toBeVisible();
  await expect(page.getByText('connected', { exact: true })).toBeVisible();
  await expect(page.getByText('Headers: X-Api-Key', { exact: false })).toBeVisible();
  // the secret was substituted on the way out
  expect(mcp.requests.some((h) => h['x-api-key'] === 'mcp-key-123')).toBe(true);
  const tools = page.getByTestId('mcp-tools');
  await expect(tools.getByRole('button', { name: /lookup_order/ })).toBeVisible();
  await tools.getByRole('button', { name: /^add Adds two numbers/ }).click();
  await expect(tools.getByText('"a": {')).toBeVisible();

  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('mcp-test-result')).toContainText('Connected');
  await expect(page.getByTestId('mcp-test-result')).toContainText('orders-test-server 1.2.3');
  await page.getByRole('button', { name: 'Refresh tools' }).click();
  await expect(page.getByText(/Listed .*\(cached/)).toBeHidden();
  await expectAccessibleAtBothWidths(page, 'MCP server page');

  // a custom tool of type mcp: one tool of this server, picked from what it offers, run for real
  const serverUrl = page.url();
  await page.goto('/console/tools?tab=custom');
  await page.getByRole('button', { name: 'Create tool' }).click();
  const create = page.getByRole('dialog', { name: 'Create a tool' });
  await create.getByRole('textbox', { name: /^Name/ }).fill('add_numbers');
  await create.getByRole('radiogroup', { name: 'Type' }).getByText('MCP', { exact: true }).click();
  await create.getByLabel('MCP server').selectOption({ label: 'orders' });
  await create.getByRole('combobox', { name: /^Tool/ }).selectOption('add');
  // its input schema becomes the parameters
  await expect(create.getByLabel('Parameter 1 name')).toHaveValue('a');
  await expect(create.getByLabel('Parameter 2 type')).toHaveValue('number');
  await expect(create.getByLabel('Parameter 2 required')).toBeChecked();
  await expectAccessible(page, 'create MCP tool dialog');
  await create.getByRole('button', { name: 'Create tool' }).click();
  await expect(create).toBeHidden();
  await page.getByRole('button', { name: 'Test add_numbers' }).click();
  const run = page.getByRole('dialog', { name: 'Test add_numbers' });
  await run.getByLabel('Arguments (JSON)').fill('{"a": 2, "b": 3}');
  // leaving the box does not move the Run button (a click pressed on it must land on it)
  const runButton = run.getByRole('button', { name: 'Run test' });
  await runButton.click({ trial: true }); // waits until the dialog has stopped moving
  const before = await runButton.boundingBox();
  await run.getByLabel('Arguments (JSON)').blur();
  expect(await runButton.boundingBox()).toEqual(before);
  await runButton.click();
  await expect(run.getByTestId('tool-test-result')).toContainText('Succeeded');
  await expect(run.getByTestId('tool-test-result')).toContainText('"sum": 5');
  await run.getByRole('button', { name: 'Close', exact: true }).click();
  await page.goto(serverUrl);

  await page.getByRole('button', { name: 'Delete' }).click();
  await page
    .getByRole('dialog', { name: 'Delete this MCP server?' })
    .getByRole('button', { name: 'Delete server' })
    .click();
  await expect(page).toHaveURL(/\/console\/tools$/);
  await expect(page.getByText('No MCP servers in the live environment.')).toBeVisible();
});

test('create a webhook tool with a parameter schema and test it with arguments: the result, then the errors', async ({
  page,
}) => {
  const email = await account('webhook-tool');
  await signIn(page, email, '/console/tools?tab=custom');
  await expect(page.getByRole('heading', { name: 'Custom tools' })).toBeVisible();
  await expect(page.getByText('No custom tools in the live environment.')).toBeVisible();
  await expectAccessibleAtBothWidths(page, 'tools page, custom tools tab');
  await page.getByRole('button', { name: 'Create tool' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create a tool' });
  await dialog.getByRole('textbox', { name: /^Name/ }).fill('create_ticket');
  await dialog.getByLabel('Description', { exact: true }).fill('Opens a support ticket');
  await dialog.getByLabel('URL').fill(receiver.url);
  await dialog.getByRole('button', { name: 'Add header' }).click();
  await dialog.getByLabel('Header 1 name').fill('X-Source');
  await dialog.getByLabel('Header 1 value').fill('voice');
  await dialog.getByRole('button', { name: 'Add parameter' }).click();
  await dialog.getByLabel('Parameter 1 name').fill('subject');
  await dialog.getByLabel('Parameter 1 description').fill('What it is about');
  await dialog.getByLabel('Parameter 1 required').check();
  await dialog.getByRole('button', { name: 'Add parameter' }).click();
  await dialog.getByLabel('Parameter 2 name').fill('priority');
  await dialog.getByLabel('Parameter 2 type').selectOption('integer');
  await dialog.getByText('As JSON Schema').click();
  await expect(dialog.getByLabel('Parameters as JSON Schema')).toContainText(
    '"required": [\n    "subject"\n  ]',
  );
  await expectAccessible(page, 'create tool dialog');
  await dialog.getByRole('button', { name: 'Create tool' }).click();
  await expect(dialog).toBeHidden();

  const row = page.getByRole('row', { name: /create_ticket/ });
  await expect(row).toContainText('webhook');
  await expect(row).toContainText('subject, priority');
  await expectAccessibleAtBothWidths(page, 'custom tools list');

  // a real run: the receiver answers 200 "ok"
  receiver.respond([], 200);
  const before = receiver.requests.length;
  await row.getByRole('button', { name: 'Test create_ticket' }).click();
  const testDialog = page.getByRole('dialog', { name: 'Test create_ticket' });
  await testDialog.getByLabel('Arguments (JSON)').fill('{"subject": "Broken blender", "priority": 2}');
  await testDialog.getByRole('button', { name: 'Run test' }).click();
  const result = testDialog.getByTestId('tool-test-result');
  await expect(result).toContainText('Succeeded');
  await expect(result).toContainText('HTTP 200');
  await expect(result).toContainText('"ok"');
  const sent = receiver.requests[before]!;
  expect(sent.method).toBe('POST');
  expect(sent.headers['x-source']).toBe('voice');
  expect(JSON.parse(sent.rawBody)).toEqual({ subject: 'Broken blender', priority: 2 });
  await expectAccessible(page, 'tool test result');

  // the endpoint fails: a failed run, with its status
  receiver.respond([503], 200);
  await testDialog.getByRole('button', { name: 'Run test' }).click();
  await expect(result).toContainText('Failed');
  await expect(result).toContainText('HTTP 503');
  // arguments the schema refuses: the API's 400, named
  await testDialog.getByLabel('Arguments (JSON)').fill('{"priority": "high"}');
  await testDialog.getByRole('button', { name: 'Run test' }).click();
  await expect(testDialog.getByRole('alert')).toContainText('subject');
  await testDialog.getByRole('button', { name: 'Close', exact: true }).click();

  await row.getByRole('button', { name: 'Delete create_ticket' }).click();
  await page
    .getByRole('dialog', { name: 'Delete this tool?' })
    .getByRole('button', { name: 'Delete tool' })
    .click();
  await expect(page.getByText('No custom tools in the live environment.')).toBeVisible();
});

test('set a secret: its name is listed, its value is never shown again; replace it, delete it', async ({
  page,
}) => {
  const email = await account('secrets');
  await signIn(page, email, '/console/tools?tab=secrets');
  await expect(page.getByRole('heading', { name: 'Secrets' })).toBeVisible();
  await expect(page.getByText('No secrets in the live environment.')).toBeVisible();
  await expectAccessibleAtBothWidths(page, 'tools page, secrets tab');
  await page.getByRole('button', { name: 'Set secret' }).click();
  const dialog = page.getByRole('dialog', { name: 'Set a secret' });
  await dialog.getByLabel('Name').fill('CRM_TOKEN');
  await dialog.getByLabel('Value').fill('very-secret-value-1');
  await expect(dialog.getByLabel('Value')).toHaveAttribute('type', 'password');
  await expectAccessible(page, 'set secret dialog');
  await dialog.getByRole('button', { name: 'Save secret' }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole('row', { name: /CRM_TOKEN/ });
  await expect(row).toContainText('{{secrets.CRM_TOKEN}}');
  await expect(page.locator('body')).not.toContainText('very-secret-value-1');
  await expectAccessibleAtBothWidths(page, 'secrets list');

  // replacing asks for the value only, and shows nothing of the old one
  await row.getByRole('button', { name: 'Replace CRM_TOKEN' }).click();
  const replace = page.getByRole('dialog', { name: 'Replace CRM_TOKEN' });
  await expect(replace.getByLabel('Value')).toHaveValue('');
  await replace.getByLabel('Value').fill('very-secret-value-2');
  await replace.getByRole('button', { name: 'Replace secret' }).click();
  await expect(replace).toBeHidden();
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.locator('body')).not.toContainText('very-secret-value');

  await row.getByRole('button', { name: 'Delete CRM_TOKEN' }).click();
  await page
    .getByRole('dialog', { name: 'Delete this secret?' })
    .getByRole('button', { name: 'Delete secret' })
    .click();
  await expect(page.getByText('No secrets in the live environment.')).toBeVisible();
});
