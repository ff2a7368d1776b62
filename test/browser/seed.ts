import { expect } from '@playwright/test';
import { completeManifest } from '../support/personas';
import { eventually } from '../support/receiver';
import { api, apiKey, devToken, TEST_ADMIN_TOKEN, twilioAccount } from './support';

/** What an account made through the APIs holds, so every console page has something to show. */
export interface Seeded {
  email: string;
  publisherId: string;
  personaId: string;
  workflowId: string;
  executionId: string;
  sessionId: string;
  webhookId: string;
  toolId: string;
  /** The registered MCP server (the test's), for its page. */
  mcpServerId: string;
  phoneNumberId: string;
  /** A call from that number, answered by the Twilio double, then hung up. */
  callId: string;
}

const OK = (res: { status: number; body: unknown }, what: string) => {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as any;
};

/**
 * The next model completion asks for `calls`, the one after answers `reply`; with no calls, the next
 * one answers `reply`, streamed a word every `tokenDelayMs` when given (see global-setup.ts).
 */
export async function scriptLlm(
  calls: { name: string; arguments: unknown }[],
  reply: string,
  pace: { tokenDelayMs?: number; delayMs?: number } = {},
): Promise<void> {
  const res = await fetch(process.env.VP_BROWSER_LLM_CONTROL!, {
    method: 'POST',
    body: JSON.stringify({ calls, reply, ...pace }),
  });
  if (res.status !== 204) throw new Error(`LLM control: ${res.status}`);
}

/** A published persona through the console API and the operator's approval. */
export async function publishedPersona(token: string, slug: string, tools?: object[]): Promise<string> {
  const manifest = { ...completeManifest(slug), ...(tools ? { tools } : {}) };
  const created = OK(
    await api('POST', '/api/v1/developers/personas', { token, body: { manifest } }),
    'persona',
  );
  const id = created.persona.id as string;
  OK(await api('POST', `/api/v1/developers/personas/${id}/submit`, { token }), 'submit');
  const decided = OK(
    await api('POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve', notes: 'ok' },
    }),
    'review',
  );
  expect(decided.persona.status).toBe('published');
  return id;
}

/** A marketplace tool of `publisher`, submitted and approved (its MCP endpoint must answer tools/list). */
export async function publishedTool(
  publisher: { id: string; name: string },
  toolId: string,
  mcpUrl: string,
): Promise<void> {
  const headers = { 'x-publisher-id': publisher.id, 'x-publisher-name': publisher.name };
  OK(
    await api('POST', '/api/marketplace/publisher/submit', {
      headers,
      body: {
        type: 'tool',
        manifest: {
          id: toolId,
          name: 'Sum Machine',
          version: '1.0.0',
          publisher,
          description: {
            short: 'Adds numbers for your agent',
            long: 'Adds two numbers, exactly, every time.',
          },
          execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcpUrl, toolName: 'add' },
          interface: { llmDescription: 'Adds two numbers' },
          permissions: ['math:compute'],
        },
      },
    }),
    'marketplace submit',
  );
  OK(
    await api('POST', `/api/admin/marketplace/items/${toolId}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    }),
    'marketplace review',
  );
}

/**
 * An account on the free plan (new accounts' plan) with a published persona, a voice workflow and an execution, a session whose turns went
 * to the workflow and to the model, a webhook with a delivery, a chat provider, and a published marketplace tool.
 */
export async function seedAccount(email: string, webhookUrl: string, mcpUrl: string): Promise<Seeded> {
  const token = await devToken(email);
  const me = OK(await api('GET', '/api/v1/developers/me', { token }), 'me');
  const key = await apiKey(email, 'live');
  const v2 = async (method: string, path: string, body?: unknown) =>
    OK(await api(method, `/api/v2/developers${path}`, { token: key, body }), `${method} ${path}`).data;

  // a provider of the account (its key is never shown), for the Providers page
  await v2('POST', '/providers', {
    name: 'Seed OpenAI',
    kind: 'chat',
    preset: 'openai',
    apiKey: 'sk-seed-key-0123',
  });
  // the persona names the MCP server whose tool its model calls below
  const mcpServer = await v2('POST', '/mcp-servers', { name: 'orders', transport: 'http', endpoint: mcpUrl });
  const personaId = await publishedPersona(token, `seed-${Date.now().toString(36)}`, [
    { type: 'mcp_server', id: mcpServer.id },
  ]);
  const workflow = await v2('POST', '/workflows', {
    name: 'Opening hours',
    trigger: { type: 'voice_command', config: { command: 'what are your opening hours' } },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'say', type: 'speak', config: { text: 'We are open nine to five, Monday to Friday.' } },
      { id: 'end', type: 'end' },
    ],
    edges: [
      { sourceId: 'start', targetId: 'say' },
      { sourceId: 'say', targetId: 'end' },
    ],
  });
  const execution = await v2('POST', `/workflows/${workflow.id}/execute`, {});
  const session = await v2('POST', '/sessions', { personaId, userId: 'caller-1' });
  const byWorkflow = await v2('POST', `/sessions/${session.id}/turns`, {
    text: 'what are your opening hours',
  });
  expect(byWorkflow.route).toBe('workflow');
  await v2('POST', `/sessions/${session.id}/turns`, { text: 'thanks, and do you ship abroad?' });
  // a turn where the model calls a tool of a registered MCP server
  await scriptLlm([{ name: 'orders__add', arguments: { a: 2, b: 3 } }], 'Two plus three is five.');
  const byTool = await v2('POST', `/sessions/${session.id}/turns`, { text: 'add two and three please' });
  expect(byTool.actions[0]).toMatchObject({ type: 'tool', tool: 'orders__add', success: true });
  await v2('POST', `/sessions/${session.id}/end`, {});
  const webhook = await v2('POST', '/webhooks', {
    name: 'seed hook',
    url: webhookUrl,
    events: ['session.ended'],
  });
  await v2('POST', `/webhooks/${webhook.id}/test`);

  const { phoneNumberId, callId } = await seedCall(v2, personaId);
  const toolId = `sum-${Date.now().toString(36)}`;
  await publishedTool({ id: me.publisherId, name: email }, toolId, mcpUrl);
  return {
    email,
    publisherId: me.publisherId,
    personaId,
    workflowId: workflow.id,
    executionId: execution.id,
    sessionId: session.id,
    webhookId: webhook.id,
    toolId,
    mcpServerId: mcpServer.id,
    phoneNumberId,
    callId,
  };
}

type V2 = (method: string, path: string, body?: unknown) => Promise<any>;

/**
 * A Twilio number on the Twilio double's account with the persona, and a call from it that the
 * double answers; hung up and ended before this returns (no call outlives the run's API).
 */
async function seedCall(v2: V2, personaId: string): Promise<{ phoneNumberId: string; callId: string }> {
  const number = await v2('POST', '/phone-numbers', {
    number: `+1415555${String(1000 + Math.floor(Math.random() * 9000))}`,
    provider: 'twilio',
    personaId,
    name: 'Support line',
    credentials: twilioAccount(),
  });
  const placed = await v2('POST', '/calls', { phoneNumberId: number.id, to: '+14155550143' });
  const reached = (status: string) =>
    eventually(async () => (await v2('GET', `/calls/${placed.id}`)).status === status, 30_000);
  await reached('in-progress');
  await v2('POST', `/calls/${placed.id}/hangup`);
  await reached('completed');
  return { phoneNumberId: number.id, callId: placed.id };
}
