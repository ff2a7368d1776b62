import type { Developer } from '../test-app';

/** Kinds of resources a tenant holds, each with the ids (or names) the fuzzer may put in a request. */
export const KINDS = [
  'keys',
  'personas',
  'secrets',
  'webhooks',
  'deliveries',
  'mcp',
  'tools',
  'workflows',
  'executions',
  'sessions',
  'turns',
  'activities',
  'oauthProviders',
  'oauthTokens',
  'account',
  'mktItems',
  'mktInstallations',
  'mktSessions',
  'mktPublisher',
  'users',
  'knowledgeBases',
  'knowledgeSources',
] as const;
export type Kind = (typeof KINDS)[number];

/**
 * One account of the run, seeded with one resource of every kind. Tenant A's are watched; tenant B
 * is who the fuzzer speaks as.
 */
export interface Tenant {
  label: string;
  dev: Developer;
  /** A word every name and text of this tenant carries. */
  marker: string;
  ids: Record<Kind, string[]>;
  /** The session a stream test may open (test environment), and a client token for its stream. */
  streamSessionId: string;
  clientToken: string;
  /** Values stored as secrets (a secret, an MCP header, an OAuth client secret): never answered, never logged. */
  canaries: string[];
  /** Keys, tokens, signing secrets: never logged, and never in the other tenant's answers. */
  credentials: string[];
  /** Ids, names and the like: never in the other tenant's answers unless it sent them. */
  privateStrings: string[];
  /** Marketplace gateway headers: as publisher, and as user (with a subscription tier). */
  publisherHeaders: Record<string, string>;
  userHeaders: Record<string, string>;
  /** Request bodies the seeding used, by operation key: templates the fuzzer mutates. */
  bodies: Record<string, unknown[]>;
}

export function emptyIds(): Record<Kind, string[]> {
  return Object.fromEntries(KINDS.map((k) => [k, [] as string[]])) as Record<Kind, string[]>;
}

/** Every private string of a tenant: its ids, names, secrets and credentials. */
export function privateValues(tenant: Tenant): string[] {
  return [...tenant.privateStrings, ...tenant.canaries, ...tenant.credentials];
}

/** Keeps a body the seeding sent, as a template for the operation's fuzzing. */
export function rememberBody(tenant: Tenant, operation: string, body: unknown): void {
  tenant.bodies[operation] = [...(tenant.bodies[operation] ?? []), body];
}
