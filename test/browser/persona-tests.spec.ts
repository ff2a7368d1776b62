import { expect, type Page, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { scriptLlm } from './seed';
import { api, devToken, expectAccessible, newEmail, signIn, TEST_ADMIN_TOKEN } from './support';

/**
 * The persona page's Tests tab against the real stack: scenarios written in the editor (the API's
 * 400 shown on its fields), runs followed to their end with verdicts and transcripts, the history,
 * a run cancelled. The model is the run's LLM double: it echoes the caller (`echo: <text>`) unless
 * scripted (seed.ts `scriptLlm`).
 */

/** An account (on a plan whose rate limits polling never meets) with a draft persona; its id. */
async function draftPersona(email: string): Promise<string> {
  const token = await devToken(email);
  const me = await api('GET', '/api/v1/developers/me', { token });
  const plan = await api('PUT', `/api/admin/accounts/${me.body.publisherId}/plan`, {
    token: TEST_ADMIN_TOKEN,
    body: { plan: 'enterprise' },
  });
  expect(plan.status).toBe(200);
  const created = await api('POST', '/api/v1/developers/personas', {
    token,
    body: { manifest: completeManifest(`tests-${Date.now().toString(36)}`) },
  });
  expect(created.status).toBe(201);
  return created.body.persona.id;
}

async function fillScenario(page: Page, name: string, expectations: string) {
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Turn 1: the caller says').fill('Where is my order?');
  await dialog
    .getByLabel('Turn 1 expectations (JSON)')
    .fill('[{ "type": "replyContains", "text": "refund" }]');
  await dialog.getByLabel('Conversation expectations (JSON)').fill(expectations);
}

test('write a scenario, see the API refuse a bad one on its field, run it to a verdict with its transcript, fix it and run it again', async ({
  page,
}) => {
  const email = newEmail('persona-tests');
  const personaId = await draftPersona(email);
  await signIn(page, email, `/console/personas/${personaId}?tab=tests`);
  await expect(page.getByRole('tab', { name: 'Tests', selected: true })).toBeVisible();
  await expect(page.getByText('No scenario yet')).toBeVisible();
  // the account's gate on review submissions sits at the top of the tab
  await expect(
    page.getByRole('switch', { name: 'Require passing tests to submit for review' }),
  ).not.toBeChecked();

  await page.getByRole('button', { name: 'New scenario' }).click();
  const dialog = page.getByRole('dialog', { name: 'New scenario' });
  // JSON that does not parse is caught before sending, on its field
  await fillScenario(page, 'Order status', '[{ "type": ');
  await dialog.getByRole('button', { name: 'Save scenario' }).click();
  await expect(dialog.getByTestId('scenario-problems')).toContainText('expectations: not JSON');
  await expect(dialog.getByLabel('Conversation expectations (JSON)')).toHaveAttribute('aria-invalid', 'true');
  // a pattern the linear-time engine cannot run (a lookahead) is refused by the API, named on the expectations
  await dialog
    .getByLabel('Conversation expectations (JSON)')
    .fill('[{ "type": "replyMatches", "pattern": "order(?= shipped)" }]');
  await dialog.getByRole('button', { name: 'Save scenario' }).click();
  await expect(dialog.getByTestId('scenario-problems')).toContainText('expectations.0.pattern');
  await expect(dialog).toContainText('0.pattern:');
  await expect(dialog.getByLabel('Conversation expectations (JSON)')).toHaveAttribute('aria-invalid', 'true');
  await expectAccessible(page, 'scenario editor with problems');

  // the expectation menu adds a template of the kind chosen
  await dialog.getByLabel('Conversation expectations (JSON)').fill('[]');
  await dialog.getByRole('combobox', { name: 'Add an expectation' }).click();
  await page.getByRole('option', { name: 'replyContains' }).click();
  await expect(dialog.getByLabel('Conversation expectations (JSON)')).toHaveValue(/"replyContains"/);
  await dialog.getByRole('button', { name: 'Save scenario' }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole('row', { name: /Order status/ });
  await expect(row).toContainText('1 scripted turn');

  // the echo contains "order" (the conversation's expectation) but not "refund" (the turn's): failed
  await page.getByRole('button', { name: 'Run tests' }).click();
  const run = page.getByTestId('run');
  await expect(run.locator('[data-status="failed"]').first()).toBeVisible({ timeout: 45_000 });
  await expect(run.getByTestId('run-summary')).toContainText('0 passed · 1 failed · 1 scenario');
  await run.getByRole('button', { name: /Order status/ }).click();
  await expect(run.locator('[data-testid="verdict"][data-passed="false"]')).toContainText('refund');
  await expect(run.locator('[data-testid="verdict"][data-passed="true"]')).toContainText('order');
  await expect(run.getByTestId('transcript')).toContainText('Where is my order?');
  await expect(run.getByTestId('transcript')).toContainText('echo:');
  await expect(run).toContainText(/median \d+ ms/);
  await expectAccessible(page, 'a failed run');

  // fixed: the turn's expectation removed, the one scenario run again passes
  await row.getByRole('button', { name: 'Edit Order status' }).click();
  const editor = page.getByRole('dialog', { name: 'Edit scenario: Order status' });
  await expect(editor.getByLabel('Turn 1 expectations (JSON)')).toHaveValue(/refund/);
  await editor.getByLabel('Turn 1 expectations (JSON)').fill('');
  await editor.getByRole('button', { name: 'Save scenario' }).click();
  await expect(editor).toBeHidden();
  await row.getByRole('button', { name: 'Run Order status' }).click();
  await expect(run.locator('[data-status="passed"]').first()).toBeVisible({ timeout: 45_000 });
  await expect(run.getByTestId('run-summary')).toContainText('1 passed · 0 failed');

  // the history holds both runs, newest first; the older one's results open from it
  const history = page.getByRole('table', { name: 'Test runs' });
  await expect(history.getByTestId('run-row')).toHaveCount(2);
  await expect(history.getByTestId('run-row').first()).toContainText('passed');
  await expect(history.getByTestId('run-row').nth(1)).toContainText('failed');
  await history.getByTestId('run-row').nth(1).getByRole('button').click();
  await expect(run.getByTestId('run-summary')).toContainText('0 passed · 1 failed');
});

test('a running run is followed live and can be cancelled; a scenario is deleted', async ({ page }) => {
  const email = newEmail('persona-tests-cancel');
  const personaId = await draftPersona(email);
  const token = await devToken(email);
  const created = await api('POST', `/api/v1/developers/personas/${personaId}/tests`, {
    token,
    body: { name: 'Slow answer', turns: [{ text: 'Hello there' }] },
  });
  expect(created.status).toBe(201);
  await signIn(page, email, `/console/personas/${personaId}?tab=tests`);
  await expect(page.getByRole('row', { name: /Slow answer/ })).toBeVisible();

  // the model takes its time: the run is still running when cancelled
  await scriptLlm([], 'Sorry for the wait.', { delayMs: 20_000 });
  await page.getByRole('button', { name: 'Run tests' }).click();
  const run = page.getByTestId('run');
  await expect(run.locator('[data-status="running"]').first()).toBeVisible();
  await run.getByRole('button', { name: 'Cancel run' }).click();
  await expect(run.locator('[data-status="cancelled"]').first()).toBeVisible({ timeout: 20_000 });
  await expect(run.getByRole('button', { name: 'Cancel run' })).toBeHidden();
  await expect(page.getByRole('table', { name: 'Test runs' })).toContainText('cancelled');

  await page.getByRole('button', { name: 'Delete Slow answer' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete scenario' }).click();
  await expect(page.getByText('No scenario yet')).toBeVisible();
  // the run that ran it keeps its record
  await expect(page.getByRole('table', { name: 'Test runs' })).toContainText('cancelled');
});
