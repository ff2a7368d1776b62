import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import { MCP_SERVER_STATUSES, MCP_TRANSPORTS } from './mcp-server.entity';

const headers = z
  .record(
    z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'must be an HTTP header name'),
    z.string().max(4096),
  )
  .refine((h) => Object.keys(h).length <= 30, 'at most 30 headers')
  .meta({
    description:
      'Sent with every request; values may use {{secrets.NAME}}. Stored encrypted, never returned.',
    example: { 'X-Api-Key': '{{secrets.CRM_TOKEN}}' },
  });

const fields = {
  name: z.string().trim().min(1).max(100).meta({ example: 'Orders' }),
  description: z.string().max(2000).optional(),
  transport: z
    .enum(MCP_TRANSPORTS)
    .meta({ description: '`http`: Streamable HTTP (current MCP); `sse`: the older HTTP+SSE transport' }),
  endpoint: z.string().max(2048).meta({ example: 'https://mcp.example.com/mcp' }),
  autoConnect: z.boolean().meta({ description: 'Connect and discover tools during registration' }),
  headers: headers.optional(),
  oauthTokenId: z.string().max(64).nullable().optional().meta({
    description: 'An OAuth token (GET /oauth/tokens) sent as the bearer token, refreshed when expired',
  }),
};

export const CreateMcpServerBody = z
  .strictObject({
    ...fields,
    transport: fields.transport.default('http'),
    autoConnect: fields.autoConnect.default(true),
  })
  .meta({ id: 'CreateMcpServerRequest' });
export type CreateMcpServerInput = z.infer<typeof CreateMcpServerBody>;

export const UpdateMcpServerBody = z
  .strictObject({
    name: fields.name.optional(),
    description: fields.description.nullable(),
    transport: fields.transport.optional(),
    endpoint: fields.endpoint.optional(),
    autoConnect: fields.autoConnect.optional(),
    headers: headers.nullable().optional(),
    oauthTokenId: fields.oauthTokenId,
  })
  .refine((b) => Object.keys(b).length > 0, {
    message: 'at least one field to change is required',
    path: ['body'],
  })
  .meta({ id: 'UpdateMcpServerRequest' });
export type UpdateMcpServerInput = z.infer<typeof UpdateMcpServerBody>;

export const McpServerRecord = z
  .object({
    id: z.string().meta({ example: 'mcp_…' }),
    name: z.string(),
    description: z.string().nullable(),
    transport: z.enum(['http', 'sse']),
    endpoint: z.string(),
    autoConnect: z.boolean(),
    headerNames: z
      .array(z.string())
      .meta({ description: 'Names of the configured headers (values are never returned)' }),
    oauthTokenId: z.string().nullable(),
    status: z.enum(MCP_SERVER_STATUSES),
    lastConnectedAt: timestamp().nullable(),
    lastError: z.string().nullable(),
    toolCount: z.number().int(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'McpServer' });

export const DiscoveredToolRecord = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    inputSchema: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'McpTool' });

export const McpTestResult = z
  .object({
    connected: z.boolean(),
    latencyMs: z.number().int(),
    serverInfo: z.record(z.string(), z.unknown()).optional(),
    toolCount: z.number().int().optional(),
    error: z.string().optional(),
  })
  .meta({ id: 'McpServerTest' });

export const McpIdParams = z.object({ id: z.string().max(64) });
export const ListMcpServersQuery = z.strictObject({ ...paginationQuery });
export const ToolsQuery = z.strictObject({
  refresh: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .meta({ description: 'true: list the tools from the server now instead of the cache' }),
});

export const McpServerEnvelope = envelopeOf(McpServerRecord);
export const McpServerList = pagedEnvelopeOf(McpServerRecord);
export const DeletedMcpServer = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));
export const McpTestEnvelope = envelopeOf(McpTestResult);
export const McpToolsEnvelope = envelopeOf(
  z.object({
    tools: z.array(DiscoveredToolRecord),
    fetchedAt: timestamp(),
    cached: z.boolean(),
  }),
);
