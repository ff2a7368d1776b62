import type { FuzzRig } from './rig';
import type { Kind, Tenant } from './tenant';

/** Path segments that are not ids, as a client may still send them (raw: already percent-encoded). */
export const BAD_PATH_SEGMENTS = [
  'x',
  '0',
  '-1',
  '1.5',
  '1e3',
  '99999999999999999999999',
  'null',
  'undefined',
  '%20',
  '%00',
  'a%00b',
  '%ZZ',
  '%E2%82',
  '%C0%AF',
  '..',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '%F0%9F%92%A5',
  '%0D%0Aset-cookie:x',
  'wh_'.padEnd(300, 'A'),
  'sess_AAAAAAAAAAAAAAAAAAAA',
  'persona_AAAAAAAAAAAAAAAA',
  "'%20or%201=1",
  '__proto__',
];

/** Which kind of id a path parameter takes, by the segment before it (and the API it is on). */
export function kindOfParam(path: string, param: string): Kind[] {
  const segments = path.split('/');
  const before = segments[segments.indexOf(`{${param}}`) - 1] ?? '';
  const marketplace = path.startsWith('/api/marketplace') || path.startsWith('/api/admin/marketplace');
  if (marketplace) {
    if (param === 'sessionId') return ['mktSessions', 'sessions'];
    if (before === 'tool' || before === 'agent') return ['mktInstallations', 'mktItems'];
    return ['mktItems'];
  }
  const byName: Record<string, Kind[]> = {
    keys: ['keys'],
    personas: ['personas'],
    secrets: ['secrets'],
    webhooks: ['webhooks'],
    logs: ['deliveries'],
    providers: ['oauthProviders'],
    tokens: ['oauthTokens'],
    'mcp-servers': ['mcp'],
    tools: ['tools'],
    workflows: ['workflows'],
    executions: ['executions'],
    sessions: ['sessions'],
    turns: ['turns'],
    activities: ['activities'],
    accounts: ['account'],
    publishers: ['mktPublisher', 'account'],
    'knowledge-bases': ['knowledgeBases'],
    sources: ['knowledgeSources'],
  };
  return byName[before] ?? ['tools', 'sessions', 'personas'];
}

export function idsOf(tenant: Tenant, kinds: Kind[]): string[] {
  return kinds.flatMap((k) => tenant.ids[k]);
}

/** Body fields that name another resource: where the other tenant's ids are tried. */
const FIELD_KINDS: Record<string, Kind[]> = {
  personaId: ['personas'],
  sessionId: ['sessions', 'mktSessions'],
  serverId: ['mcp'],
  oauthTokenId: ['oauthTokens'],
  providerId: ['oauthProviders'],
  toolId: ['mktItems', 'tools'],
  agentId: ['mktItems'],
  itemId: ['mktItems'],
  workflowId: ['workflows'],
  webhookId: ['webhooks'],
  userId: ['users'],
  publisherId: ['account', 'mktPublisher'],
};

/** The tenant's ids of the kinds a body field named `field` refers to (none for other fields). */
export function idsForField(tenant: Tenant, field: string | undefined): string[] {
  const kinds = field ? FIELD_KINDS[field] : undefined;
  return kinds ? idsOf(tenant, kinds) : [];
}

const URL_FIELDS = new Set([
  'url',
  'endpoint',
  'authorizationUrl',
  'tokenUrl',
  'revocationUrl',
  'redirectUri',
]);

/**
 * Strings the fuzzer tries in a body field beside random ones: both tenants' ids for a field that
 * names a resource, the run's own servers (and a few an SSRF guard must refuse) for a URL, and
 * secret references (both tenants' secrets) anywhere.
 */
export function stringHints(rig: FuzzRig, actor: Tenant, victim: Tenant) {
  const secretRefs = [...actor.ids.secrets, ...victim.ids.secrets].map((n) => `{{secrets.${n}}}`);
  const urls = [
    rig.receiver.url,
    rig.mcp.url,
    `${rig.oauth.issuer.url}/token`,
    `${rig.receiver.url}?key={{secrets.${victim.ids.secrets[0]}}}`,
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]:9/x',
    'file:///etc/passwd',
    'https://example.com/hooks/voice',
    'ftp://example.com/x',
  ];
  return (field: string | undefined): string[] => {
    if (field && URL_FIELDS.has(field)) return urls;
    const kinds = field ? FIELD_KINDS[field] : undefined;
    if (kinds) return [...idsOf(actor, kinds), ...idsOf(victim, kinds)];
    return [...secretRefs, `Bearer ${secretRefs[1]}`, 'Say {{input}}'];
  };
}
