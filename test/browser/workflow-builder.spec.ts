import { expect, type Page, test } from '@playwright/test';
import { api, devToken, expectAccessible, newEmail, signIn } from './support';

const node = (page: Page, id: string) => page.getByTestId(`builder-node-${id}`);
const handle = (page: Page, id: string, kind: 'source' | 'target', handleId?: string) =>
  page.locator(
    `.react-flow__node[data-id="${id}"] .react-flow__handle.${kind}${handleId ? `[data-handleid="${handleId}"]` : ''}`,
  );

/** Drags from one node's handle to another's, as a developer joins two nodes. */
async function drag(page: Page, from: ReturnType<typeof handle>, to: ReturnType<typeof handle>) {
  const a = await from.boundingBox();
  const b = await to.boundingBox();
  if (!a || !b) throw new Error('a handle is not on screen');
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
}

async function connectInPanel(page: Page, from: string, to: string, when?: 'true' | 'false') {
  await node(page, from).click();
  const panel = page.getByRole('region', { name: `Node ${from}` });
  await panel.getByLabel('Connect to').selectOption(to);
  if (when) await panel.getByLabel('When').selectOption(when);
  await panel.getByRole('button', { name: 'Connect' }).click();
}

test('workflow builder: a condition with two branches, problems on their node, dry runs of both branches, save, trigger by phrase', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, newEmail('builder'), '/console/workflows');
  await page.getByRole('link', { name: 'New workflow' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New workflow' })).toBeVisible();
  await page.getByLabel('Name').fill('Member greeting');
  await page.getByLabel('Command').fill('greet me as a member');

  const palette = page.getByRole('toolbar', { name: 'Add a node' });
  await palette.getByRole('button', { name: '+ Condition' }).click();
  await palette.getByRole('button', { name: '+ Speak' }).click();
  await page.getByLabel('Text to say').fill('Welcome back, member.');
  await palette.getByRole('button', { name: '+ Speak' }).click();
  await page.getByLabel('Text to say').fill('Hello, guest.');

  // start → condition, by dragging; the start's old edge to the end goes
  await node(page, 'start').click();
  await page.getByRole('button', { name: 'Remove the edge start → end' }).click();
  await drag(page, handle(page, 'start', 'source'), handle(page, 'condition_1', 'target'));
  await expect(page.getByRole('list', { name: 'Edges from start' })).toContainText('condition_1');
  // the condition's true outcome, by dragging from its left handle
  await drag(page, handle(page, 'condition_1', 'source', 'true'), handle(page, 'speak_1', 'target'));
  await node(page, 'condition_1').click();
  await expect(page.getByRole('list', { name: 'Edges from condition_1' })).toContainText('true → speak_1');
  await connectInPanel(page, 'condition_1', 'speak_2', 'false');
  await connectInPanel(page, 'speak_1', 'end');
  await connectInPanel(page, 'speak_2', 'end');

  // saved with an empty expression: the API's problem is shown on the condition node
  await page.getByRole('button', { name: 'Create workflow' }).click();
  await expect(node(page, 'condition_1')).not.toHaveAttribute('data-problems', '0');
  await node(page, 'condition_1').click();
  await expect(page.getByTestId('node-problems')).toContainText('config.expression');
  await page.getByLabel('Expression').fill('input.member == true');
  await expect(node(page, 'condition_1')).toHaveAttribute('data-problems', '0');
  await page.getByRole('button', { name: 'Create workflow' }).click();
  await expect(page).toHaveURL(/\/console\/workflows\/wf_[A-Za-z0-9]+\/edit$/);
  await expect(page.getByText('Version 1 · saved')).toBeVisible();
  await expectAccessible(page, 'workflow builder at 1280 px');

  // dry runs of both branches colour the path taken
  await page.getByLabel('Input (JSON)').fill('{"member": true}');
  await page.getByRole('button', { name: 'Dry run' }).click();
  await expect(page.getByTestId('dry-run-result')).toContainText('Says: “Welcome back, member.”');
  await expect(node(page, 'speak_1')).toHaveAttribute('data-status', 'completed');
  await expect(node(page, 'speak_2')).toHaveAttribute('data-status', 'skipped');
  await page.getByLabel('Input (JSON)').fill('{"member": false}');
  await page.getByRole('button', { name: 'Dry run' }).click();
  await expect(page.getByTestId('dry-run-result')).toContainText('Says: “Hello, guest.”');
  await expect(node(page, 'speak_2')).toHaveAttribute('data-status', 'completed');
  await expect(node(page, 'speak_1')).toHaveAttribute('data-status', 'skipped');

  // triggered by a phrase, for real: no input, so the guest branch
  await page.getByRole('tab', { name: 'Say a phrase' }).click();
  await page.getByRole('textbox', { name: 'Say a phrase' }).fill('please greet me as a member');
  await page.getByRole('button', { name: 'Say it' }).click();
  const run = page.getByTestId('run-result');
  await expect(run).toContainText('Matched “Member greeting” (this workflow)');
  await expect(run).toContainText('Says: “Hello, guest.”');

  // an edit saved as version 2; version 1 stays in the history and opens in the builder
  await node(page, 'speak_2').click();
  await page.getByLabel('Text to say').fill('Hello there, guest.');
  await page.getByRole('button', { name: 'Save as a new version' }).click();
  await expect(page.getByText('Version 2 · saved')).toBeVisible();
  await page.getByRole('tab', { name: 'Versions' }).click();
  await expect(page.getByTestId('version-2')).toContainText('current');
  await page.getByRole('button', { name: 'Open version 1' }).click();
  await node(page, 'speak_2').click();
  await expect(page.getByLabel('Text to say')).toHaveValue('Hello, guest.');
  await expect(page.getByText('opened from version 1')).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, 'workflow builder at 390 px');
});

test('the builder and the Tools page read one MCP servers entry in either order; a node form that fails keeps the graph', async ({
  page,
}) => {
  const email = newEmail('mcp-cache');
  const registered = await api('POST', '/api/v2/developers/mcp-servers', {
    token: await devToken(email),
    headers: { 'X-Console-Environment': 'live' },
    body: { name: 'orders', transport: 'http', endpoint: 'http://127.0.0.1:9/mcp', autoConnect: false },
  });
  expect(registered.status).toBe(201);
  const addMcpCall = async () => {
    await page.getByLabel('Name').fill('Order lookup');
    await page
      .getByRole('toolbar', { name: 'Add a node' })
      .getByRole('button', { name: '+ MCP call' })
      .click();
    await expect(
      page.getByLabel('MCP server').locator('option', { hasText: 'orders (0 tools)' }),
    ).toBeAttached();
  };
  const serversTable = page.getByRole('table', { name: 'MCP servers' });
  // the builder first, then the Tools page (within the cache's 5 s: it reads the builder's entry)
  await signIn(page, email, '/console/workflows/new');
  await addMcpCall();
  await page
    .getByRole('navigation', { name: 'Console sections' })
    .getByRole('link', { name: 'Tools' })
    .click();
  await expect(serversTable.getByRole('link', { name: 'orders' })).toBeVisible();
  // the Tools page first (a fresh load), then the builder
  await page.reload();
  await expect(serversTable.getByRole('link', { name: 'orders' })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Console sections' })
    .getByRole('link', { name: 'Workflows' })
    .click();
  await page.getByRole('link', { name: 'New workflow' }).click();
  await addMcpCall();

  // a node's form that fails to render (here on an answer it cannot read) says so in its panel;
  // the graph and what was typed stay, and another node's form opens as usual
  await page.route('**/api/v2/developers/mcp-servers?*', (route) =>
    route.fulfill({ json: { data: 'not a list' } }),
  );
  await page.goto('/console/workflows/new');
  await page.getByLabel('Name').fill('Order lookup');
  const palette = page.getByRole('toolbar', { name: 'Add a node' });
  await palette.getByRole('button', { name: '+ Speak' }).click();
  await page.getByLabel('Text to say').fill('One moment.');
  await palette.getByRole('button', { name: '+ MCP call' }).click();
  await expect(page.getByTestId('render-error')).toContainText("The node's settings hit an error");
  await expect(page.getByTestId('render-error')).toContainText('Your unsaved graph is kept');
  await expect(node(page, 'mcp_call_1')).toBeVisible();
  await expect(page.getByLabel('Name')).toHaveValue('Order lookup');
  await node(page, 'speak_1').click();
  await expect(page.getByLabel('Text to say')).toHaveValue('One moment.');
});
