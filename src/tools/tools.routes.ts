import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import {
  CreateToolBody,
  DeletedTool,
  ListToolsQuery,
  TestToolBody,
  ToolEnvelope,
  ToolExecutionEnvelope,
  ToolIdParams,
  ToolList,
  UpdateToolBody,
} from './tools.schemas';
import { createTool, deleteTool, getTool, listTools, testTool, updateTool } from './tools.service';

export function mountToolRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/tools',
      idempotent: true,
      summary: 'Create a custom tool (webhook, mcp or prompt)',
      scope: 'tools:write',
      body: CreateToolBody,
      success: { status: 201, description: 'The tool', schema: ToolEnvelope },
      handler: async ({ auth, body }) => ok(await createTool(ctx, em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/tools',
      summary: 'List tools',
      scope: 'tools:read',
      query: ListToolsQuery,
      success: { description: 'Tools', schema: ToolList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listTools(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/tools/:id',
      summary: 'Get a tool',
      scope: 'tools:read',
      params: ToolIdParams,
      success: { description: 'The tool', schema: ToolEnvelope },
      handler: async ({ auth, params }) => ok(await getTool(em(), auth, params.id)),
    })
    .route({
      method: 'put',
      path: '/tools/:id',
      summary: 'Update a tool',
      scope: 'tools:write',
      params: ToolIdParams,
      body: UpdateToolBody,
      success: { description: 'The tool', schema: ToolEnvelope },
      handler: async ({ auth, params, body }) => ok(await updateTool(ctx, em(), auth, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/tools/:id',
      summary: 'Delete a tool',
      scope: 'tools:write',
      params: ToolIdParams,
      success: { description: 'Deleted', schema: DeletedTool },
      handler: async ({ auth, params }) => ok(await deleteTool(em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/tools/:id/test',
      summary: 'Execute a tool now with arguments',
      description:
        'Really runs it (HTTP request, MCP tools/call or LLM completion) and emits tool.called then tool.completed or tool.failed. Bad arguments or an unknown secret are a 400; a failed run is a 200 with success false.',
      scope: 'tools:write',
      params: ToolIdParams,
      body: TestToolBody,
      success: {
        status: 200,
        description: 'success, result or error, durationMs',
        schema: ToolExecutionEnvelope,
      },
      handler: async ({ auth, params, body }) => ok(await testTool(ctx, em(), auth, params.id, body)),
    });
}
