import type { MutationRequest } from '../concurrent-mutations';
import { TEST_ADMIN_TOKEN } from '../env';
import type { McpTestServer } from '../mcp-test-server';
import { completeManifest } from '../personas';
import { call, type TestApp } from '../test-app';
import { count, ok, unique } from './fixtures';

export interface MarketplaceEnv {
  app: TestApp;
  mcp: McpTestServer;
}

export const M = '/api/marketplace';
export const PUBLISHER = { 'x-publisher-id': 'pub_races', 'x-publisher-name': 'Races Inc' };
export const userHeaders = (userId: string) => ({ 'x-user-id': userId, 'x-subscription-tier': 'pro' });
export const send = (env: MarketplaceEnv, r: Omit<MutationRequest, 'method'> & { method: string }) =>
  call(env.app.baseUrl, r.method, r.path, { headers: r.headers, body: r.body, token: r.token });

export function toolManifest(env: MarketplaceEnv, id: string, version = '1.0.0') {
  return {
    id,
    name: id,
    version,
    publisher: { id: 'pub_races', name: 'Races Inc' },
    description: { short: `${id} tool`, long: `The ${id} tool, for the race tests.` },
    execution: { runtime: { type: 'mcp', version: '2025-06-18' }, endpoint: env.mcp.url, toolName: 'add' },
    interface: { llmDescription: 'Adds two numbers a and b' },
  };
}

export function agentManifest(id: string) {
  return {
    id,
    name: id,
    version: '1.0.0',
    publisher: { id: 'pub_races', name: 'Races Inc' },
    description: { short: `${id} agent`, long: `The ${id} agent, for the race tests.` },
    displayName: 'Race Helper',
    persona: completeManifest(id),
    tools: [],
  };
}

export const submit = (env: MarketplaceEnv, type: 'tool' | 'agent', manifest: object) =>
  ok(
    send(env, {
      method: 'POST',
      path: `${M}/publisher/submit`,
      headers: PUBLISHER,
      body: { type, manifest },
    }),
    'submit',
  );
export const approve = (env: MarketplaceEnv, id: string) =>
  ok(
    call(env.app.baseUrl, 'POST', `/api/admin/marketplace/items/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    }),
    'approve item',
  );

/** An approved item of the publisher's (submitted, checked, approved). */
export async function approvedItem(env: MarketplaceEnv, type: 'tool' | 'agent'): Promise<string> {
  const id = unique(type);
  await submit(env, type, type === 'tool' ? toolManifest(env, id) : agentManifest(id));
  await approve(env, id);
  return id;
}

export async function installed(env: MarketplaceEnv, type: 'tool' | 'agent', itemId: string, userId: string) {
  const res = await ok(
    send(env, {
      method: 'POST',
      path: `${M}/install/${type}`,
      headers: userHeaders(userId),
      body: { [`${type}Id`]: itemId },
    }),
    'install',
  );
  return res.body.installation.id as string;
}

export const itemRow = async (env: MarketplaceEnv, id: string) =>
  (
    await env.app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select * from marketplace_items where id = ?', [id])
  )[0];
export const activeInstalls = (env: MarketplaceEnv, itemId: string) =>
  count(env.app, "select count(*) from marketplace_installations where item_id = ? and status = 'active'", [
    itemId,
  ]);
export const usageOf = (env: MarketplaceEnv, itemId: string) =>
  count(env.app, 'select count(*) from marketplace_usage where item_id = ?', [itemId]);

/** An installed agent's session for a user of its own. */
export async function agentSession(env: MarketplaceEnv) {
  const itemId = await approvedItem(env, 'agent');
  const userId = unique('usr');
  await installed(env, 'agent', itemId, userId);
  const started = await ok(
    send(env, {
      method: 'POST',
      path: `${M}/agents/${itemId}/sessions`,
      headers: userHeaders(userId),
      body: {},
    }),
    'start agent session',
  );
  return { itemId, userId, sessionId: started.body.data.id as string };
}
