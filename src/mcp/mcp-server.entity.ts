import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';

/** Declared once: the TS types and the zod enums (mcp.schemas.ts) derive from these. */
export const MCP_TRANSPORTS = ['http', 'sse'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];
export const MCP_SERVER_STATUSES = ['connected', 'error', 'unknown'] as const;
export type McpServerStatus = (typeof MCP_SERVER_STATUSES)[number];

export interface DiscoveredTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/**
 * A registered MCP server (`mcp_…`). Its request headers (which may hold `{{secrets.NAME}}`
 * placeholders or literal credentials) are stored encrypted and never returned; discovered tools
 * are cached with the time they were listed.
 */
export class McpServer {
  [OptionalProps]?:
    | 'id'
    | 'createdAt'
    | 'updatedAt'
    | 'description'
    | 'headersCiphertext'
    | 'oauthTokenId'
    | 'status'
    | 'lastConnectedAt'
    | 'lastError'
    | 'toolCount'
    | 'tools'
    | 'toolsFetchedAt'
    | 'serverInfo';
  id: string = newId('mcp');
  account!: string;
  environment!: Environment;
  name!: string;
  description?: string | null;
  transport!: McpTransport;
  endpoint!: string;
  autoConnect!: boolean;
  headersCiphertext?: string | null;
  oauthTokenId?: string | null;
  status: McpServerStatus = 'unknown';
  lastConnectedAt?: Date | null;
  lastError?: string | null;
  toolCount = 0;
  tools?: DiscoveredTool[] | null;
  toolsFetchedAt?: Date | null;
  serverInfo?: Record<string, unknown> | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const McpServerSchema = new EntitySchema<McpServer>({
  class: McpServer,
  tableName: 'mcp_servers',
  properties: {
    ...ownedResourceProperties(),
    name: { type: 'string', length: 100 },
    description: { type: 'text', nullable: true },
    transport: { type: 'string', length: 8 },
    endpoint: { type: 'string', length: 2048 },
    autoConnect: { type: 'boolean' },
    headersCiphertext: { type: 'text', nullable: true },
    oauthTokenId: { type: 'string', length: 40, nullable: true },
    status: { type: 'string', length: 16 },
    lastConnectedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    lastError: { type: 'text', nullable: true },
    toolCount: { type: 'integer' },
    tools: { type: 'json', nullable: true },
    toolsFetchedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    serverInfo: { type: 'json', nullable: true },
    ...timestampProperties(),
  },
});

export const mcpHeadersAad = (s: Pick<McpServer, 'id' | 'account' | 'environment'>) =>
  `mcp-headers:${s.id}:${s.account}:${s.environment}`;
