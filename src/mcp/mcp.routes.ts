import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import {
  CreateMcpServerBody,
  DeletedMcpServer,
  ListMcpServersQuery,
  McpIdParams,
  McpServerEnvelope,
  McpServerList,
  McpTestEnvelope,
  McpToolsEnvelope,
  ToolsQuery,
  UpdateMcpServerBody,
} from './mcp.schemas';
import {
  createServer,
  deleteServer,
  findServer,
  listServers,
  serverTools,
  serverView,
  testServer,
  updateServer,
} from './mcp.service';

export function mountMcpServerRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/mcp-servers',
      idempotent: true,
      summary: 'Register an MCP server',
      description:
        'With `autoConnect` (default true) it connects and discovers tools now; a failure is recorded in `status`/`lastError`. Plan limits: 3 (free), 25 (pro), unlimited (enterprise).',
      scope: 'mcp:write',
      body: CreateMcpServerBody,
      success: { status: 201, description: 'The server', schema: McpServerEnvelope },
      handler: async ({ auth, body }) => ok(await createServer(ctx, em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/mcp-servers',
      summary: 'List MCP servers',
      scope: 'mcp:read',
      query: ListMcpServersQuery,
      success: { description: 'Servers', schema: McpServerList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listServers(ctx, em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/mcp-servers/:id',
      summary: 'Get an MCP server',
      scope: 'mcp:read',
      params: McpIdParams,
      success: { description: 'The server', schema: McpServerEnvelope },
      handler: async ({ auth, params }) => ok(serverView(ctx, await findServer(em(), auth, params.id))),
    })
    .route({
      method: 'put',
      path: '/mcp-servers/:id',
      summary: 'Update an MCP server',
      description:
        'Changing endpoint, transport, headers or token clears the tool cache (and reconnects with autoConnect).',
      scope: 'mcp:write',
      params: McpIdParams,
      body: UpdateMcpServerBody,
      success: { description: 'The server', schema: McpServerEnvelope },
      handler: async ({ auth, params, body }) => ok(await updateServer(ctx, em(), auth, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/mcp-servers/:id',
      summary: 'Delete an MCP server',
      scope: 'mcp:write',
      params: McpIdParams,
      success: { description: 'Deleted', schema: DeletedMcpServer },
      handler: async ({ auth, params }) => ok(await deleteServer(em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/mcp-servers/:id/test',
      summary: 'Test the connection: initialize + tools/list',
      scope: 'mcp:write',
      params: McpIdParams,
      success: {
        description: 'connected, latencyMs, serverInfo, toolCount, or error',
        schema: McpTestEnvelope,
      },
      handler: async ({ auth, params }) => ok(await testServer(ctx, em(), auth, params.id)),
    })
    .route({
      method: 'get',
      path: '/mcp-servers/:id/tools',
      summary: 'List the discovered tools (cached; ?refresh=true lists them now)',
      scope: 'mcp:read',
      params: McpIdParams,
      query: ToolsQuery,
      success: { description: 'The tools', schema: McpToolsEnvelope },
      handler: async ({ auth, params, query }) =>
        ok(await serverTools(ctx, em(), auth, params.id, query.refresh)),
    });
}
