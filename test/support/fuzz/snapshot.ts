import { call } from '../test-app';
import type { Tenant } from './tenant';

const V1 = '/api/v1/developers';
const V2 = '/api/v2/developers';

/**
 * Fields that change without anyone touching the tenant's resources, left out of the comparison: a
 * key's last use (the tenant's own reads), and how many installed a public marketplace item (anyone
 * may install it, and its row is touched when they do).
 */
const VOLATILE = new Set(['lastUsedAt']);
const MARKETPLACE_VOLATILE = new Set(['lastUsedAt', 'activeInstalls', 'updatedAt']);

/**
 * What the tenant sees of everything it owns, through its own GETs: every list and every seeded
 * resource, in the environment it lives in. Two snapshots are equal when nothing of it changed.
 */
export async function snapshotOf(baseUrl: string, tenant: Tenant): Promise<Record<string, unknown>> {
  const { ids, dev } = tenant;
  const live: string[] = [
    '/secrets',
    '/webhooks',
    ...ids.webhooks.flatMap((id) => [`/webhooks/${id}`, `/webhooks/${id}/logs`]),
    ...ids.deliveries.map((id) => `/webhooks/${ids.webhooks[0]}/logs/${id}`),
    '/mcp-servers',
    ...ids.mcp.map((id) => `/mcp-servers/${id}`),
    '/tools',
    ...ids.tools.map((id) => `/tools/${id}`),
    '/workflows',
    ...ids.workflows.flatMap((id) => [
      `/workflows/${id}`,
      `/workflows/${id}/versions`,
      `/workflows/${id}/executions`,
    ]),
    ...ids.executions.map((id) => `/workflows/${ids.workflows[0]}/executions/${id}`),
    '/oauth/providers',
    ...ids.oauthProviders.map((id) => `/oauth/providers/${id}`),
    '/oauth/tokens',
    '/knowledge-bases',
    ...ids.knowledgeBases.flatMap((id) => [`/knowledge-bases/${id}`, `/knowledge-bases/${id}/sources`]),
    ...ids.knowledgeSources.map((id) => `/knowledge-bases/${ids.knowledgeBases[0]}/sources/${id}`),
  ];
  const sandbox: string[] = [
    '/sessions',
    ...ids.sessions.flatMap((id) => [`/sessions/${id}`, `/sessions/${id}/context`]),
    '/activities',
    ...ids.activities.map((id) => `/activities/${id}`),
  ];
  const reads: [string, string, Record<string, string>][] = [
    ...live.map((p): [string, string, Record<string, string>] => [V2 + p, dev.liveKey, {}]),
    ...sandbox.map((p): [string, string, Record<string, string>] => [V2 + p, dev.testKey, {}]),
    ...['/me', '/keys', '/personas', ...ids.personas.map((id) => `/personas/${id}`)].map(
      (p): [string, string, Record<string, string>] => [V1 + p, dev.token, {}],
    ),
    ['/api/marketplace/publisher/items', '', tenant.publisherHeaders],
    ['/api/marketplace/install/list', '', tenant.userHeaders],
    ...ids.mktSessions.map((id): [string, string, Record<string, string>] => [
      `/api/marketplace/agents/${ids.mktItems[1]}/sessions/${id}`,
      '',
      tenant.userHeaders,
    ]),
  ];
  const snapshot: Record<string, unknown> = {};
  for (const [path, token, headers] of reads) {
    const res = await call(baseUrl, 'GET', path, { token: token || undefined, headers });
    const volatile = path.startsWith('/api/marketplace/publisher') ? MARKETPLACE_VOLATILE : VOLATILE;
    snapshot[path] = { status: res.status, body: withoutVolatile(res.body, volatile) };
  }
  return snapshot;
}

function withoutVolatile(value: unknown, volatile: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutVolatile(v, volatile));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !volatile.has(key))
      .map(([key, v]) => [key, withoutVolatile(v, volatile)]),
  );
}

/** The paths whose answer differs between two snapshots, each with both answers (shortened). */
export function snapshotChanges(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const changes: string[] = [];
  for (const path of Object.keys(before)) {
    const a = JSON.stringify(before[path]);
    const b = JSON.stringify(after[path]);
    if (a !== b)
      changes.push(`${path} changed:\n    before ${a.slice(0, 400)}\n    after  ${b.slice(0, 400)}`);
  }
  return changes;
}
