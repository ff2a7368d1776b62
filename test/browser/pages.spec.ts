import { expect, type Page, test } from '@playwright/test';
import { type McpTestServer, startMcpTestServer } from '../support/mcp-test-server';
import { type Receiver, startReceiver } from '../support/receiver';
import { type Seeded, seedAccount } from './seed';
import { expectAccessible, newEmail, signIn } from './support';

let receiver: Receiver;
let mcp: McpTestServer;
let seeded: Seeded;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  receiver = await startReceiver();
  mcp = await startMcpTestServer();
  seeded = await seedAccount(newEmail('pages'), receiver.url, mcp.url);
});
test.afterAll(async () => {
  await receiver?.close();
  await mcp?.close();
});

/** Every page of the console with the heading it shows, for an account that has data on each. */
const pages = (s: Seeded): [string, string | RegExp][] => [
  ['/console/', 'Overview'],
  ['/console/keys', 'API keys'],
  ['/console/personas', 'Personas'],
  [`/console/personas/${s.personaId}`, 'Ava'],
  ['/console/voices', 'Voices'],
  ['/console/webhooks', 'Webhooks'],
  [`/console/webhooks/${s.webhookId}`, 'seed hook'],
  ['/console/workflows', 'Workflows'],
  [`/console/workflows/${s.workflowId}?execution=${s.executionId}`, 'Opening hours'],
  [`/console/workflows/${s.workflowId}/edit`, 'Edit Opening hours'],
  ['/console/workflows/new', 'New workflow'],
  ['/console/sessions', 'Sessions'],
  [`/console/sessions/${s.sessionId}`, `Session ${s.sessionId}`],
  ['/console/marketplace', 'Marketplace'],
  ['/console/marketplace?tab=installed', 'Marketplace'],
  ['/console/marketplace?tab=publishing', 'Marketplace'],
  ['/console/marketplace/publish', 'Publish a tool or agent'],
  ['/console/tools', 'Tools'],
  [`/console/tools/mcp-servers/${s.mcpServerId}`, 'orders'],
  ['/console/tools?tab=custom', 'Tools'],
  ['/console/tools?tab=secrets', 'Tools'],
  ['/console/tools?tab=oauth', 'Tools'],
  ['/console/providers', 'Providers'],
  ['/console/activities', 'Activities'],
  ['/console/phone-numbers', 'Phone numbers'],
  ['/console/calls', 'Calls'],
  [`/console/calls/${s.callId}`, `Call ${s.callId}`],
  ['/console/campaigns', 'Campaigns'],
  ['/console/knowledge', 'Knowledge'],
];

/** The pages docs/console.md shows a picture of, by path (ids as `<prefix>_id`), and the picture's name. */
const DOC_SHOTS: Record<string, string> = {
  '/console/keys': 'keys',
  '/console/personas': 'personas',
  '/console/personas/persona_id': 'persona-form',
  '/console/voices': 'voices',
  '/console/webhooks/wh_id': 'webhook',
  '/console/sessions/sess_id': 'session',
  '/console/tools': 'tools',
  '/console/marketplace/publish': 'marketplace-publish',
  '/console/workflows/wf_id/edit': 'workflow-builder',
  '/console/sessions': 'sessions',
  '/console/tools/mcp-servers/mcp_id': 'mcp-server',
  '/console/activities': 'activities',
  '/console/marketplace': 'marketplace',
  '/console/phone-numbers': 'phone-numbers',
  '/console/calls/call_id': 'call',
};

async function settle(page: Page, heading: string | RegExp) {
  await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Loading' })).toHaveCount(0);
}

/** How far the page scrolls sideways, and the outermost elements reaching past the right edge. */
async function overflow(page: Page): Promise<{ by: number; offenders: string[] }> {
  return page.evaluate<{ by: number; offenders: string[] }>(`(() => {
    const width = window.innerWidth;
    const past = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 1);
    const outermost = past.filter((el) => !past.includes(el.parentElement));
    return {
      by: document.documentElement.scrollWidth - width,
      offenders: outermost.slice(0, 5).map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' ' + (el.textContent || '').slice(0, 40)),
    };
  })()`);
}

/** The status badges whose text does not fit (an ellipsis: "PUBLISH…"). */
function cutBadges(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('[data-status] .mantine-Badge-label')]
    .filter((label) => label.scrollWidth > label.clientWidth + 1)
    .map((label) => label.textContent)`);
}

for (const width of [1280, 390]) {
  test(`every page at ${width} px: renders its data, no sideways scrolling, no serious axe-core violation`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height: width > 800 ? 800 : 844 });
    // the seeded account is on the free plan: a person opening page after page (here faster than one a
    // second, twice within a minute or two) never meets a rate limit
    const limited: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 429) limited.push(new URL(r.url()).pathname);
    });
    await signIn(page, seeded.email);
    for (const [path, heading] of pages(seeded)) {
      await page.goto(path);
      await settle(page, heading);
      const sideways = await overflow(page);
      expect(
        sideways.by,
        `${path} scrolls sideways at ${width} px: ${sideways.offenders.join(' | ')}`,
      ).toBeLessThanOrEqual(0);
      expect(await cutBadges(page), `${path}: status badges cut at ${width} px`).toEqual([]);
      await expectAccessible(page, `${path} at ${width} px`);
      // `VP_DOCS_SCREENSHOTS=<dir>`: the pictures docs/console.md shows, made from this run's pages
      const shot = DOC_SHOTS[path.replace(/(persona|wf|mcp|sess|wh|call)_[A-Za-z0-9]+/g, '$1_id')];
      if (process.env.VP_DOCS_SCREENSHOTS && width === 1280 && shot) {
        await page.screenshot({ path: `${process.env.VP_DOCS_SCREENSHOTS}/console-${shot}.png` });
      }
    }
    expect(limited, 'answers 429 to the console').toEqual([]);
    // a table wider than the screen says it scrolls; at full width there is nothing to say
    await page.goto('/console/personas');
    await expect(page.getByRole('table', { name: 'Personas' })).toBeVisible();
    await expect(page.getByTestId('scroll-hint')).toHaveCount(width < 560 ? 1 : 0);
    // the data is there: the session's transcript with its workflow action, the execution's node results
    await page.goto(`/console/sessions/${seeded.sessionId}`);
    await expect(page.getByTestId('action-workflow')).toContainText('Opening hours');
    await expect(page.getByText('We are open nine to five, Monday to Friday.').first()).toBeVisible();
    await expect(page.getByText('thanks, and do you ship abroad?', { exact: true })).toBeVisible();
    const tool = page.getByTestId('action-tool');
    await expect(tool).toContainText('orders__add');
    await expect(tool).toContainText('arguments: {"a":2,"b":3}');
    await expect(tool).toContainText('result: {"sum":5}');
    await expect(page.getByText('Two plus three is five.')).toBeVisible();
    await page.getByTestId('action-workflow').getByRole('link', { name: 'Opening hours' }).click();
    await expect(page.getByTestId('execution')).toBeVisible();
    await expect(page.getByTestId('workflow-graph').getByTestId('graph-node-say')).toBeVisible();
  });
}

test('a person opening every page at one a second, on the free plan, meets no 429', async ({ page }) => {
  test.setTimeout(120_000);
  const limited: string[] = [];
  page.on('response', (r) => {
    if (r.status() === 429) limited.push(new URL(r.url()).pathname);
  });
  await signIn(page, seeded.email);
  for (const [path, heading] of pages(seeded)) {
    const opened = Date.now();
    await page.goto(path); // a full load each time: more calls than clicking through the navigation
    await settle(page, heading);
    await page.waitForTimeout(Math.max(0, 1000 - (Date.now() - opened)));
  }
  expect(limited, 'answers 429 to the console').toEqual([]);
});

test('keyboard only at 390 px: sign in, open the menu, reach a page, create a key and close its dialog', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/console/');
  await expect(page.getByLabel('Email')).toBeVisible();
  await page.getByLabel('Email').focus();
  await page.keyboard.type(newEmail('keyboard'));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  // Tab through the header to the menu button
  const menu = page.getByRole('button', { name: 'Open navigation' });
  for (
    let i = 0;
    i < 10 && !(await menu.evaluate((el) => el === (el.ownerDocument as any).activeElement));
    i++
  ) {
    await page.keyboard.press('Tab');
  }
  await expect(menu).toBeFocused();
  await page.keyboard.press('Enter');
  const keysLink = page.getByRole('link', { name: 'API keys' });
  await expect(keysLink).toBeVisible();
  for (
    let i = 0;
    i < 20 && !(await keysLink.evaluate((el) => el === (el.ownerDocument as any).activeElement));
    i++
  ) {
    await page.keyboard.press('Tab');
  }
  await expect(keysLink).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();

  const create = page.getByRole('button', { name: 'Create key' });
  for (
    let i = 0;
    i < 20 && !(await create.evaluate((el) => el === (el.ownerDocument as any).activeElement));
    i++
  ) {
    await page.keyboard.press('Tab');
  }
  await expect(create).toBeFocused();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await expect(dialog.getByLabel('Name')).toBeFocused(); // focus moves into the dialog
  await page.keyboard.type('keyboard key');
  await page.keyboard.press('Enter');
  const shown = page.getByRole('dialog', { name: 'Copy your new key now' });
  await expect(shown.getByTestId('full-key')).toHaveText(/^pk_live_/);
  await page.keyboard.press('Escape');
  await expect(shown).toBeHidden();
  await expect(page.getByRole('row', { name: /keyboard key/ })).toBeVisible();
});
