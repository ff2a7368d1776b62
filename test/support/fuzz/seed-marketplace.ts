import { TEST_ADMIN_TOKEN } from '../env';
import { completeManifest } from '../personas';
import { call } from '../test-app';
import type { FuzzRig } from './rig';
import { rememberBody, type Tenant } from './tenant';

const MKT = '/api/marketplace';
/** A seeded item's slug in a path (`/execute/alpha-tool-1a2b`), for the body's template key. */
const ITEM_IN_PATH = /\/[a-z0-9-]+-(tool|agent)-[a-f0-9]+/;

/**
 * The tenant's marketplace side: as a publisher, an approved tool and agent (public from then on);
 * as a user, both installed and an agent session. Gateway identities are the tenant's own
 * (`pub_mkt_…`, `usr_…`), so the other tenant's headers name someone else.
 */
export async function seedMarketplace(rig: FuzzRig, tenant: Tenant, nonce: string): Promise<void> {
  const { app } = rig;
  // public once an item is approved: it must not carry the tenant's private marker
  const publisherId = `pub_mkt_p${nonce}`;
  tenant.publisherHeaders = { 'x-publisher-id': publisherId, 'x-publisher-name': `Publisher ${nonce}` };
  const userId = `usr_${tenant.marker}`;
  tenant.userHeaders = { 'x-user-id': userId, 'x-subscription-tier': 'pro' };
  tenant.ids.mktPublisher.push(publisherId);
  tenant.ids.users.push(userId);
  const mkt = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
    if (body !== undefined)
      rememberBody(tenant, `${method} ${MKT}${path.replace(ITEM_IN_PATH, '/{itemId}')}`, body);
    const res = await call(app.baseUrl, method, MKT + path, { headers, body });
    if (res.status >= 300)
      throw new Error(`seeding ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
  const approve = async (id: string) => {
    const res = await call(app.baseUrl, 'POST', `/api/admin/marketplace/items/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    if (res.status !== 200) throw new Error(`approving ${id}: ${JSON.stringify(res.body)}`);
  };
  const base = (id: string) => ({
    id,
    name: `Item ${nonce}`,
    version: '1.0.0',
    publisher: { id: publisherId, name: `Publisher ${nonce}` },
    description: { short: `Adds numbers ${nonce}`, long: `Adds two numbers, for the fuzzer ${nonce}.` },
  });
  const toolId = `${tenant.label}-tool-${nonce}`;
  const agentId = `${tenant.label}-agent-${nonce}`;
  await mkt(
    'POST',
    '/publisher/submit',
    {
      type: 'tool',
      manifest: {
        ...base(toolId),
        execution: {
          runtime: { type: 'mcp', version: '2025-06-18' },
          endpoint: rig.mcp.url,
          toolName: 'add',
        },
        interface: {
          llmDescription: 'Adds two numbers a and b',
          inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
        },
        permissions: ['math:compute'],
      },
    },
    tenant.publisherHeaders,
  );
  await approve(toolId);
  await mkt(
    'POST',
    '/publisher/submit',
    {
      type: 'agent',
      manifest: {
        ...base(agentId),
        displayName: `Agent ${nonce}`,
        persona: completeManifest(agentId),
        tools: [toolId],
      },
    },
    tenant.publisherHeaders,
  );
  await approve(agentId);
  tenant.ids.mktItems.push(toolId, agentId);

  const user = tenant.userHeaders;
  const tool = await mkt('POST', '/install/tool', { toolId, grantedPermissions: ['math:compute'] }, user);
  const agent = await mkt('POST', '/install/agent', { agentId }, user);
  tenant.ids.mktInstallations.push(tool.body.installation.id, agent.body.installation.id);
  await mkt('POST', `/execute/${toolId}`, { arguments: { a: 1, b: 2 } }, user);
  const session = await mkt(
    'POST',
    `/agents/${agentId}/sessions`,
    { metadata: { note: tenant.marker } },
    user,
  );
  tenant.ids.mktSessions.push(session.body.data.id);
}
