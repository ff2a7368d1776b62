import { expect, test } from '@playwright/test';
import { scriptLlm } from './seed';
import { expectAccessible, newEmail, signIn } from './support';

test('from a blank account: the checklist, a persona from the template, and a test call whose agent looks the order up with the demo MCP server', async ({
  page,
}) => {
  const started = Date.now();
  await signIn(page, newEmail('first-five'), '/console/');
  const checklist = page.getByRole('region', { name: 'Getting started' });
  await expect(checklist).toContainText('0 of 6 done');
  await expectAccessible(page, 'overview with the getting-started checklist');

  await checklist.getByRole('button', { name: 'Create from a template' }).click();
  await expect(page).toHaveURL(/\/console\/personas\/persona_/);
  await expect(page.getByRole('heading', { name: 'Ava' })).toBeVisible();

  // the model asks for the demo shop's lookup tool, then answers from its result
  await scriptLlm(
    [{ name: 'demo-shop__lookup_order', arguments: { orderId: 'A-1002' } }],
    'Your ceramic teapot has shipped and arrives Thursday.',
  );
  await page.getByRole('button', { name: 'Test call' }).click();
  const panel = page.getByRole('region', { name: /^Test call with Ava/ });
  await panel.getByRole('button', { name: 'Start call' }).click();
  const transcript = panel.getByRole('log', { name: 'Call transcript' });
  await expect(transcript.getByTestId('call-agent').first()).toContainText('Hi, this is Ava');
  await panel.getByLabel('Say something').fill('Where is my order A-1002?');
  await panel.getByLabel('Say something').press('Enter');
  const tool = transcript.getByTestId('call-tool');
  await expect(tool).toContainText('demo-shop__lookup_order');
  await expect(tool).toContainText('completed');
  await expect(transcript.getByTestId('call-agent').nth(1)).toContainText('arrives Thursday');
  await expect(transcript.getByTestId('call-agent').nth(1)).toContainText('recorded as turn 1');
  await panel.getByRole('button', { name: 'End call' }).click();
  await expect(transcript.getByTestId('call-ended')).toBeVisible();

  await page.getByRole('link', { name: 'Overview' }).first().click();
  await expect(checklist).toContainText('4 of 6 done');
  // the template built the agent in test, and the console went there with it: the first call counts
  const environment = page.getByRole('radiogroup', { name: 'Environment' });
  await expect(environment.getByRole('radio', { name: 'Test' })).toBeChecked();
  await expect(page.getByTestId('value-activePersonas')).toHaveText('1');
  // and the console stays in the environment it was last in
  await page.reload();
  await expect(environment.getByRole('radio', { name: 'Test' })).toBeChecked();
  await expect(page.getByTestId('value-uniqueUsers')).toHaveText('1');
  for (const step of ['Create a persona (your agent)', 'Give it a voice', 'Talk to it', 'Give it a tool']) {
    await expect(checklist.getByRole('listitem').filter({ hasText: step })).toHaveAttribute(
      'data-done',
      'true',
    );
  }
  console.log(
    `blank account → a tool-using conversation: ${((Date.now() - started) / 1000).toFixed(1)} s in the browser`,
  );
});
