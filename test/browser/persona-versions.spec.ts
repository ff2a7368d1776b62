import { expect, type Page, test } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { publishedPersona, scriptLlm } from './seed';
import { api, apiKey, devToken, expectAccessible, newEmail, signIn, TEST_ADMIN_TOKEN } from './support';

const OK = (res: { status: number; body: any }, what: string) => {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** Submits the persona's working copy and approves it as the operator: its next version goes live. */
async function approve(token: string, id: string): Promise<void> {
  OK(await api('POST', `/api/v1/developers/personas/${id}/submit`, { token }), 'submit');
  const decided = OK(
    await api('POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve', notes: 'ok' },
    }),
    'review',
  );
  expect(decided.persona.status).toBe('published');
}

/** A live-key session of `personaId` with one turn, ended; the model answers its analysis with `analysis` if given. */
async function endedSession(key: string, personaId: string, analysis?: unknown): Promise<any> {
  const v2 = async (method: string, path: string, body?: unknown) =>
    OK(await api(method, `/api/v2/developers${path}`, { token: key, body }), `${method} ${path}`).data;
  const session = await v2('POST', '/sessions', { personaId, userId: 'caller-1' });
  await v2('POST', `/sessions/${session.id}/turns`, { text: 'where is my order A-1001' });
  // the turn's completion is answered: the next one the model is asked for is the analysis
  if (analysis !== undefined) await scriptLlm([], JSON.stringify(analysis));
  await v2('POST', `/sessions/${session.id}/end`, {});
  return session;
}

/** Waits until the session's analysis is no longer pending (or never comes) and answers it. */
async function settledAnalysis(key: string, sessionId: string): Promise<any> {
  let analysis: any;
  await expect
    .poll(
      async () => {
        const res = await api('GET', `/api/v2/developers/sessions/${sessionId}/analysis`, { token: key });
        analysis = res.body.data;
        return res.status === 200 ? analysis.status : res.status;
      },
      { timeout: 30_000 },
    )
    .toMatch(/^(completed|failed|skipped)$/);
  return analysis;
}

const changeRow = (page: Page, from: number, to: number, field: string) =>
  page
    .getByRole('table', { name: `Changes from version ${from} to version ${to}` })
    .getByRole('row')
    .filter({ has: page.getByText(field, { exact: true }) });

test('persona versions: revise a published persona, compare two versions, roll back to the first', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const email = newEmail('versions');
  const token = await devToken(email);
  const key = await apiKey(email, 'live');
  const slug = `ver-${Date.now().toString(36)}`;
  const id = await publishedPersona(token, slug);

  await signIn(page, email, `/console/personas/${id}?tab=versions`);
  await expect(page.getByRole('tab', { name: 'Versions', selected: true })).toBeVisible();
  await expect(page.getByTestId('version-1')).toContainText('live');
  await expect(page.getByText('One version so far')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Roll back to this version' })).toHaveCount(0);
  // a published persona opens a revision as a draft; version 1 stays live
  await page.getByRole('button', { name: 'Revise' }).click();
  await expect(page.locator('[data-status="draft"]').first()).toBeVisible();
  await expect(page.getByText('A revision is open')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Revise' })).toHaveCount(0);

  const revised = completeManifest(slug);
  revised.identity.tagline = 'Order help, any hour';
  revised.personality.warmth = 0.5;
  revised.knowledge.domains.push('billing');
  OK(await api('PUT', `/api/v1/developers/personas/${id}`, { token, body: { manifest: revised } }), 'edit');
  await approve(token, id);
  await page.reload();
  await expect(page.getByTestId('version-2')).toContainText('live');
  await expect(page.getByTestId('version-1')).not.toContainText('live');

  // by default the newest version against the one before it, each change with its values
  await expect(page.getByText('3 changes from version 1 to version 2')).toBeVisible();
  await expect(changeRow(page, 1, 2, 'identity.tagline')).toContainText('changed');
  await expect(changeRow(page, 1, 2, 'identity.tagline')).toContainText(
    '"Calm, quick support for your orders"',
  );
  await expect(changeRow(page, 1, 2, 'identity.tagline')).toContainText('"Order help, any hour"');
  await expect(changeRow(page, 1, 2, 'personality.warmth')).toContainText(/0\.8.*0\.5/);
  await expect(changeRow(page, 1, 2, 'knowledge.domains[2]')).toContainText('added');
  await expect(changeRow(page, 1, 2, 'knowledge.domains[2]')).toContainText('"billing"');
  await expectAccessible(page, 'persona versions');
  // any two, either way round
  await page.getByLabel('From version', { exact: true }).selectOption('2');
  await page.getByLabel('To version', { exact: true }).selectOption('1');
  await expect(changeRow(page, 2, 1, 'knowledge.domains[2]')).toContainText('removed');
  await expect(changeRow(page, 2, 1, 'knowledge.domains[2]')).toContainText('"billing"');
  await page.getByLabel('To version', { exact: true }).selectOption('2');
  await expect(page.getByText('Versions 2 and 2 have the same manifest.')).toBeVisible();

  // rolling back asks first; cancelling changes nothing
  const rollBack = page.getByTestId('version-1').getByRole('button', { name: 'Roll back to this version' });
  await rollBack.click();
  const dialog = page.getByRole('dialog', { name: 'Roll back to version 1?' });
  await expect(dialog).toContainText('in place of version 2');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('version-2')).toContainText('live');
  await rollBack.click();
  await dialog.getByRole('button', { name: 'Roll back' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('version-1')).toContainText('live');
  await expect(
    page.getByTestId('version-2').getByRole('button', { name: 'Roll back to this version' }),
  ).toBeVisible();
  const listed = OK(await api('GET', `/api/v1/developers/personas/${id}/versions`, { token }), 'versions');
  expect(listed.liveVersion).toBe(1);

  // a new live session runs version 1, and its page says so
  const session = await endedSession(key, id);
  expect(session.personaVersion).toBe(1);
  await page.goto(`/console/sessions/${session.id}`);
  await expect(page.getByRole('heading', { level: 1, name: `Session ${session.id}` })).toBeVisible();
  await expect(page.getByRole('main')).toContainText('Ava version 1 · user caller-1');
});

test('a session page shows its post-call analysis, and the overview each persona’s success rate', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const email = newEmail('analysis');
  const token = await devToken(email);
  const key = await apiKey(email, 'live');
  const slug = `ana-${Date.now().toString(36)}`;
  const manifest = {
    ...completeManifest(slug),
    analysis: {
      summary: true,
      successCriteria: 'The caller learns where their order is.',
      dataSchema: { type: 'object', properties: { orderNumber: { type: 'string' } } },
    },
  };
  manifest.identity.name = 'Ana';
  const created = OK(
    await api('POST', '/api/v1/developers/personas', { token, body: { manifest } }),
    'persona',
  );
  const analysed = created.persona.id as string;
  await approve(token, analysed);
  const plain = await publishedPersona(token, `plain-${Date.now().toString(36)}`);

  const passed = await endedSession(key, analysed, {
    summary: 'The caller asked where order A-1001 is; it ships tomorrow.',
    success: { passed: true, reason: 'The caller was told when the order ships.' },
    data: { orderNumber: 'A-1001' },
  });
  expect(await settledAnalysis(key, passed.id)).toMatchObject({ status: 'completed', attempts: 1 });
  const missed = await endedSession(key, analysed, {
    summary: 'The caller asked about an order the agent could not find.',
    success: { passed: false, reason: 'The order was not found.' },
    data: {},
  });
  expect(await settledAnalysis(key, missed.id)).toMatchObject({ status: 'completed' });
  // unscripted, the model double echoes: not JSON, twice, so the analysis fails
  const unanswered = await endedSession(key, analysed);
  expect(await settledAnalysis(key, unanswered.id)).toMatchObject({ status: 'failed', attempts: 2 });
  const none = await endedSession(key, plain);

  await signIn(page, email, `/console/sessions/${passed.id}`);
  const panel = page.getByTestId('session-analysis');
  await expect(panel.locator('[data-status="completed"]')).toBeVisible();
  await expect(panel.getByTestId('analysis-summary')).toContainText('it ships tomorrow');
  await expect(panel.getByTestId('analysis-success')).toContainText('passed');
  await expect(panel.getByTestId('analysis-success')).toContainText(
    'The caller was told when the order ships.',
  );
  await expect(
    panel.getByRole('table', { name: 'Extracted data' }).getByRole('row', { name: /orderNumber/ }),
  ).toContainText('A-1001');
  await expectAccessible(page, 'session with its analysis');

  await page.goto(`/console/sessions/${missed.id}`);
  await expect(panel.getByTestId('analysis-success')).toContainText('failed');
  await expect(panel.getByTestId('analysis-success')).toContainText('The order was not found.');
  await expect(panel).toContainText('No data fields were told in the call.');
  await page.goto(`/console/sessions/${unanswered.id}`);
  await expect(panel.locator('[data-status="failed"]')).toBeVisible();
  await expect(panel).toContainText('after 2 attempts');
  await page.goto(`/console/sessions/${none.id}`);
  await expect(panel.locator('[data-status="none"]')).toBeVisible();

  // two calls graded, one passed; the persona without success criteria has no rate (not 0%)
  await page.goto('/console/');
  const personas = page.getByRole('table', { name: 'Personas by sessions' });
  const rate = await api('GET', '/api/v1/developers/analytics/personas?period=week&environment=live', {
    token,
  });
  const entry = rate.body.personas.find((p: { personaId: string }) => p.personaId === analysed);
  expect(entry).toMatchObject({ analyzedCalls: 2, successRate: 0.5 });
  const anaRow = personas.getByRole('row').filter({ hasText: 'Ana' });
  await expect(anaRow.getByRole('cell').nth(4)).toHaveText('2');
  await expect(anaRow.getByRole('cell').nth(5)).toHaveText('50%');
  const avaRow = personas.getByRole('row').filter({ hasText: 'Ava' });
  await expect(avaRow.getByRole('cell').nth(4)).toHaveText('0');
  await expect(avaRow.getByRole('cell').nth(5)).toHaveText('—');
  await expectAccessible(page, 'overview with success rates');
});
