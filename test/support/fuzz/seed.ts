import { randomBytes } from 'node:crypto';
import { completeManifest } from '../personas';
import { type ApiResponse, call, newDeveloper, setPlan } from '../test-app';
import type { FuzzRig } from './rig';
import { seedMarketplace } from './seed-marketplace';
import { emptyIds, rememberBody, type Tenant } from './tenant';

const V1 = '/api/v1/developers';
const V2 = '/api/v2/developers';
const EVENTS = ['session.started', 'session.ended', 'tool.called', 'tool.completed', 'webhook.test'];

/** The answer, or an error naming what could not be seeded. */
export function must<T = any>(res: ApiResponse<T>, what: string, ...statuses: number[]): ApiResponse<T> {
  if (!(statuses.length ? statuses : [200, 201]).includes(res.status)) {
    throw new Error(`seeding ${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  }
  return res;
}

/**
 * A fresh account with one resource of every kind (docs/api-contract.md "Ids"), in the live
 * environment except its sessions and activities (the sandbox: any persona may be talked to there):
 * a secret, a persona, a webhook and a delivery, an MCP server with a secret header, webhook, MCP and
 * prompt tools, a workflow and an execution, an OAuth provider and a token, sessions with a turn, an
 * activity, and marketplace items, installations and an agent session. Secret values are canaries.
 */
export async function seedTenant(rig: FuzzRig, label: string): Promise<Tenant> {
  const { app } = rig;
  const dev = await newDeveloper(app, `fuzz-${label}`);
  await setPlan(app, dev.publisherId, 'enterprise'); // plan limits are not what is fuzzed
  const nonce = randomBytes(5).toString('hex');
  const marker = `${label}${nonce}`;
  const tenant: Tenant = {
    label,
    dev,
    marker,
    ids: emptyIds(),
    streamSessionId: '',
    clientToken: '',
    canaries: [`canary-secret-${marker}`, `canary-mcp-header-${marker}`, `canary-oauth-client-${marker}`],
    credentials: [dev.liveKey, dev.testKey, dev.token],
    privateStrings: [marker, dev.email, dev.publisherId],
    publisherHeaders: {},
    userHeaders: {},
    bodies: {},
  };
  const [secretValue, mcpHeader, clientSecret] = tenant.canaries;
  const send = async (method: string, path: string, body?: unknown, token = dev.liveKey) => {
    if (body !== undefined) rememberBody(tenant, `${method} ${templateOf(path)}`, body);
    return call(app.baseUrl, method, path, { token, body });
  };
  const v2 = (method: string, path: string, body?: unknown, key = dev.liveKey) =>
    send(method, V2 + path, body, key).then((res) => must(res, `${method} ${path}`));

  const secretName = `${label.toUpperCase()}_CANARY_${nonce}`;
  tenant.ids.secrets.push(secretName);
  await v2('PUT', `/secrets/${secretName}`, { value: secretValue });
  const persona = must(
    await send(
      'POST',
      `${V1}/personas`,
      { manifest: completeManifest(`${label}-agent-${nonce}`) },
      dev.token,
    ),
    'persona',
  ).body.persona.id as string;
  tenant.ids.personas.push(persona);

  const hook = await v2('POST', '/webhooks', {
    name: `${marker} hook`,
    url: rig.receiver.url,
    events: EVENTS,
    personaId: persona,
  });
  tenant.ids.webhooks.push(hook.body.data.id);
  tenant.credentials.push(hook.body.data.secret);
  const tested = await v2('POST', `/webhooks/${hook.body.data.id}/test`);
  tenant.ids.deliveries.push(tested.body.data.deliveryId);

  const mcp = await v2('POST', '/mcp-servers', {
    name: `${marker} mcp`,
    endpoint: rig.mcp.url,
    headers: { 'X-Api-Key': mcpHeader, 'X-Secret-Ref': `{{secrets.${secretName}}}` },
  });
  tenant.ids.mcp.push(mcp.body.data.id);
  await seedTools(tenant, v2, rig, secretName, mcp.body.data.id);
  await seedWorkflow(tenant, v2);
  await seedOAuth(tenant, v2, rig, clientSecret, app.baseUrl);
  await seedSessions(tenant, v2, persona);
  await seedKnowledge(tenant, v2);

  const keys = must(await call(app.baseUrl, 'GET', `${V1}/keys`, { token: dev.token }), 'keys');
  tenant.ids.keys.push(...keys.body.keys.map((k: { id: string }) => k.id));
  tenant.ids.account.push(dev.publisherId);
  await seedMarketplace(rig, tenant, nonce);
  tenant.privateStrings.push(...privateIds(tenant));
  return tenant;
}

type V2 = (method: string, path: string, body?: unknown, key?: string) => Promise<ApiResponse>;

async function seedTools(tenant: Tenant, v2: V2, rig: FuzzRig, secretName: string, serverId: string) {
  const { label, marker } = tenant;
  const tools = [
    {
      name: `${label}_hook_tool`,
      description: `${marker} webhook tool`,
      type: 'webhook',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      config: {
        url: rig.receiver.url,
        method: 'POST',
        headers: { Authorization: `Bearer {{secrets.${secretName}}}` },
        timeoutMs: 1000,
      },
    },
    {
      name: `${label}_add`,
      description: `${marker} mcp tool`,
      type: 'mcp',
      config: { serverId, toolName: 'add' },
    },
    {
      name: `${label}_prompt`,
      description: `${marker} prompt tool`,
      type: 'prompt',
      config: { prompt: 'Say {{input}}' },
    },
  ];
  for (const tool of tools) tenant.ids.tools.push((await v2('POST', '/tools', tool)).body.data.id);
  await v2('POST', `/tools/${tenant.ids.tools[0]}/test`, { arguments: { orderId: 'A-1' } });
}

async function seedWorkflow(tenant: Tenant, v2: V2) {
  const workflow = await v2('POST', '/workflows', {
    name: `${tenant.marker} flow`,
    trigger: { type: 'voice_command', config: { command: `${tenant.marker} status check` } },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'say', type: 'speak', config: { text: `Done ${tenant.marker}` } },
      { id: 'end', type: 'end' },
    ],
    edges: [
      { sourceId: 'start', targetId: 'say' },
      { sourceId: 'say', targetId: 'end' },
    ],
  });
  const id = workflow.body.data.id as string;
  tenant.ids.workflows.push(id);
  const run = await v2('POST', `/workflows/${id}/execute`, { input: { note: tenant.marker }, wait: true });
  tenant.ids.executions.push(run.body.data.id);
}

/** A provider on the run's OAuth server, and a token through the whole authorize → callback flow. */
async function seedOAuth(tenant: Tenant, v2: V2, rig: FuzzRig, clientSecret: string, baseUrl: string) {
  const issuer = rig.oauth.issuer.url!;
  const provider = await v2('POST', '/oauth/providers', {
    name: `${tenant.marker} calendar`,
    authorizationUrl: `${issuer}/authorize`,
    tokenUrl: `${issuer}/token`,
    revocationUrl: `${issuer}/revoke`,
    clientId: `${tenant.label}-client`,
    clientSecret,
    scopes: ['calendar.read', 'offline_access'],
  });
  const providerId = provider.body.data.id as string;
  tenant.ids.oauthProviders.push(providerId);
  const started = await v2('POST', '/oauth/authorize', { providerId });
  tenant.credentials.push(started.body.data.state);
  const redirect = await fetch(started.body.data.authorizationUrl, { redirect: 'manual' });
  const location = new URL(redirect.headers.get('location')!);
  const callback = must(
    await call(baseUrl, 'GET', `${location.pathname}${location.search}`),
    'OAuth callback',
  );
  tenant.ids.oauthTokens.push(callback.body.data.id);
  tenant.credentials.push(location.searchParams.get('code') ?? '', ...rig.issuedTokens);
}

async function seedSessions(tenant: Tenant, v2: V2, personaId: string) {
  const key = tenant.dev.testKey;
  const userId = `caller-${tenant.marker}`;
  tenant.ids.users.push(userId);
  for (let i = 0; i < 2; i++) {
    const session = await v2(
      'POST',
      '/sessions',
      { personaId, userId, metadata: { note: tenant.marker } },
      key,
    );
    tenant.ids.sessions.push(session.body.data.id);
  }
  const [talked, streamed] = tenant.ids.sessions;
  tenant.streamSessionId = streamed;
  const turn = await v2('POST', `/sessions/${talked}/turns`, { text: 'Where is my parcel?' }, key);
  tenant.ids.turns.push(String(turn.body.data.index), '0');
  const token = await v2('POST', `/sessions/${streamed}/client-token`, undefined, key);
  tenant.clientToken = token.body.data.token;
  tenant.credentials.push(tenant.clientToken);
  const activity = await v2(
    'POST',
    '/activities',
    { type: 'order.placed', payload: { note: tenant.marker }, userId, sessionId: talked, personaId },
    key,
  );
  tenant.ids.activities.push(activity.body.data.id);
}

/** A knowledge base with a text source, waited for until indexed (so no snapshot sees it change). */
async function seedKnowledge(tenant: Tenant, v2: V2) {
  const base = await v2('POST', '/knowledge-bases', { name: `${tenant.marker} handbook` });
  const baseId = base.body.data.id as string;
  const text = `# Returns\n\n${tenant.marker}: returns within 30 days.`;
  const source = await v2('POST', `/knowledge-bases/${baseId}/sources`, {
    type: 'text',
    name: tenant.marker,
    text,
  });
  const sourceId = source.body.data.id as string;
  tenant.ids.knowledgeBases.push(baseId);
  tenant.ids.knowledgeSources.push(sourceId);
  for (let waited = 0; waited < 30_000; waited += 100) {
    const read = await v2('GET', `/knowledge-bases/${baseId}/sources/${sourceId}`);
    if (read.body.data.status === 'ready') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`seeding the knowledge source ${sourceId}: not indexed in 30 s`);
}

/** The ids no one else may learn (marketplace items and publishers are public once approved). */
function privateIds(tenant: Tenant): string[] {
  const { mktItems: _public, mktPublisher: _alsoPublic, turns: _numbers, ...rest } = tenant.ids;
  return Object.values(rest).flat();
}

/** `/api/v2/developers/webhooks/wh_1/test` → `/api/v2/developers/webhooks/{id}/test` (for body templates). */
function templateOf(path: string): string {
  return path
    .replace(/\/(wh|tool|wf|mcp|sess|persona|act|oap|oat|key|del|exec|kb)_[A-Za-z0-9]+/g, '/{id}')
    .replace(/\/ks_[A-Za-z0-9]+/g, '/{sourceId}')
    .replace(/\/secrets\/[A-Za-z0-9_]+$/, '/secrets/{name}');
}
