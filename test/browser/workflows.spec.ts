import { expect, test } from '@playwright/test';
import { api, apiKey, expectAccessible, newEmail, signIn } from './support';

test('open a workflow: its nodes are drawn, an execution shows each node result and links to Temporal', async ({
  page,
}) => {
  const email = newEmail('workflows');
  const key = await apiKey(email, 'live');
  const created = await api('POST', '/api/v2/developers/workflows', {
    token: key,
    body: {
      name: 'Greeter',
      description: 'Greets VIPs differently',
      trigger: { type: 'voice_command', config: { command: 'greet me' } },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'vip', type: 'condition', config: { expression: 'input.vip == true' } },
        { id: 'welcome', type: 'speak', config: { text: 'Welcome back, {{input.name}}!' } },
        { id: 'hello', type: 'speak', config: { text: 'Hello {{input.name}}.' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { sourceId: 'start', targetId: 'vip' },
        { sourceId: 'vip', targetId: 'welcome', condition: 'true' },
        { sourceId: 'vip', targetId: 'hello', condition: 'false' },
        { sourceId: 'welcome', targetId: 'end' },
        { sourceId: 'hello', targetId: 'end' },
      ],
    },
  });
  expect(created.status).toBe(201);
  const workflowId = created.body.data.id;
  const executed = await api('POST', `/api/v2/developers/workflows/${workflowId}/execute`, {
    token: key,
    body: { input: { vip: true, name: 'Ana' } },
  });
  expect(executed.body.data.status).toBe('completed');
  const executionId = executed.body.data.id;

  await signIn(page, email, '/console/workflows');
  await page.getByRole('link', { name: 'Greeter' }).click();
  await expect(page.getByRole('heading', { name: 'Greeter' })).toBeVisible();
  const graph = page.getByTestId('workflow-graph');
  for (const id of ['start', 'vip', 'welcome', 'hello', 'end']) {
    await expect(graph.getByTestId(`graph-node-${id}`)).toBeVisible();
  }
  // dagre lays it out top to bottom: start above the condition above both branches above end
  const y = async (id: string) => (await graph.getByTestId(`graph-node-${id}`).boundingBox())!.y;
  expect(await y('start')).toBeLessThan(await y('vip'));
  expect(await y('vip')).toBeLessThan(await y('welcome'));
  expect(await y('hello')).toBeLessThan(await y('end'));
  await expect(graph.locator('.react-flow__edge')).toHaveCount(5);
  await expectAccessible(page, 'workflow');

  await page.getByRole('button', { name: executionId }).click();
  await expect(page).toHaveURL(new RegExp(`execution=${executionId}`));
  await expect(graph.getByTestId('graph-node-welcome')).toHaveAttribute('data-status', 'completed');
  await expect(graph.getByTestId('graph-node-hello')).toHaveAttribute('data-status', 'skipped');
  await expect(page.getByTestId('step-welcome')).toContainText('Welcome back, Ana!');
  await expect(page.getByTestId('step-vip')).toContainText('true');
  const link = page.getByTestId('temporal-link');
  await expect(link).toHaveAttribute('href', new RegExp(`/namespaces/default/workflows/${executionId}$`));
  await expectAccessible(page, 'workflow execution');
});
