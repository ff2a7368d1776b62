import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { deleteOwned, enforcePlanLimit, findOwned, listOwned, type Page } from '../common/owned';
import type { Owner } from '../common/owner';
import type { Plan } from '../config/env';
import { ApiError, validationFailed } from '../http/errors';
import { oauthTokenProblem } from '../oauth';
import { urlProblems } from '../outbound/http';
import { resolveSecrets, secretNamesIn } from '../secrets';
import type { CreateMcpServerInput, UpdateMcpServerInput } from './mcp.schemas';
import { McpError, withMcpClient } from './mcp-client';
import { type DiscoveredTool, McpServer, mcpHeadersAad } from './mcp-server.entity';

/** MCP servers per account and environment (docs/api-contract.md "Plan limits"); enterprise is unlimited. */
export const MCP_SERVER_LIMITS: Record<Plan, number | null> = { free: 3, pro: 25, enterprise: null };

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function serverView(ctx: AppContext, s: McpServer) {
  return {
    id: s.id,
    name: s.name,
    description: s.description ?? null,
    transport: s.transport,
    endpoint: s.endpoint,
    autoConnect: s.autoConnect,
    headerNames: s.headersCiphertext
      ? Object.keys(JSON.parse(ctx.encryptor.decrypt(s.headersCiphertext, mcpHeadersAad(s))))
      : [],
    oauthTokenId: s.oauthTokenId ?? null,
    status: s.status,
    lastConnectedAt: iso(s.lastConnectedAt),
    lastError: s.lastError ?? null,
    toolCount: s.toolCount,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export const findServer = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, McpServer, owner, id, 'MCP server');

async function checkInput(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  input: { endpoint?: string; oauthTokenId?: string | null; headers?: Record<string, string> | null },
) {
  // every {{secrets.NAME}} must exist now, not at the first call (400 naming the missing ones)
  await resolveSecrets(em, ctx.encryptor, owner, secretNamesIn(Object.values(input.headers ?? {})));
  const problems = [
    ...urlProblems(ctx.config.outbound, { endpoint: input.endpoint }),
    ...[await oauthTokenProblem(em, owner, input.oauthTokenId, 'oauthTokenId')].filter(
      (p) => p !== undefined,
    ),
  ];
  if (problems.length) throw validationFailed(problems);
}

/** initialize + tools/list; records the outcome on the server (status, lastError, the tool cache). */
async function discover(ctx: AppContext, em: EntityManager, owner: Owner, server: McpServer) {
  const started = performance.now();
  try {
    const { tools, serverInfo } = await withMcpClient(ctx, em, owner, server, async (client) => {
      const listed: DiscoveredTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        for (const t of page.tools) {
          listed.push({
            name: t.name,
            ...(t.description ? { description: t.description } : {}),
            inputSchema: t.inputSchema as Record<string, unknown>,
          });
        }
        cursor = page.nextCursor;
      } while (cursor && listed.length < 1000);
      return { tools: listed, serverInfo: client.getServerVersion() ?? {} };
    });
    const now = new Date();
    Object.assign(server, {
      status: 'connected',
      lastConnectedAt: now,
      lastError: null,
      tools,
      toolCount: tools.length,
      toolsFetchedAt: now,
      serverInfo,
    });
    await em.flush();
    return { ok: true as const, latencyMs: Math.round(performance.now() - started), tools, serverInfo };
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    server.status = 'error';
    server.lastError = error.message;
    await em.flush();
    return {
      ok: false as const,
      latencyMs: Math.round(performance.now() - started),
      error: error.message,
      tooLarge: error.tooLarge,
    };
  }
}

export async function createServer(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  input: CreateMcpServerInput,
) {
  await checkInput(ctx, em, auth, input);
  const server = await em.transactional(async (tem) => {
    await enforcePlanLimit(tem, McpServer, auth, MCP_SERVER_LIMITS[auth.plan], 'MCP servers');
    const s = tem.create(McpServer, {
      account: auth.accountId,
      environment: auth.environment,
      name: input.name,
      description: input.description ?? null,
      transport: input.transport,
      endpoint: input.endpoint,
      autoConnect: input.autoConnect,
      oauthTokenId: input.oauthTokenId ?? null,
    });
    if (input.headers && Object.keys(input.headers).length) {
      s.headersCiphertext = ctx.encryptor.encrypt(JSON.stringify(input.headers), mcpHeadersAad(s));
    }
    return s;
  });
  if (server.autoConnect) await discover(ctx, em, auth, server);
  return serverView(ctx, server);
}

export async function listServers(ctx: AppContext, em: EntityManager, owner: Owner, page: Page) {
  const { items, total } = await listOwned(em, McpServer, owner, page);
  return { data: items.map((s) => serverView(ctx, s)), total };
}

export async function updateServer(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  changes: UpdateMcpServerInput,
) {
  const server = await findServer(em, owner, id);
  await checkInput(ctx, em, owner, changes);
  const { headers, ...rest } = changes;
  em.assign(server, rest);
  if (headers !== undefined) {
    server.headersCiphertext =
      headers && Object.keys(headers).length
        ? ctx.encryptor.encrypt(JSON.stringify(headers), mcpHeadersAad(server))
        : null;
  }
  const connectionChanged = ['endpoint', 'transport', 'headers', 'oauthTokenId'].some((k) => k in changes);
  if (connectionChanged) {
    Object.assign(server, {
      status: 'unknown',
      tools: null,
      toolCount: 0,
      toolsFetchedAt: null,
      lastError: null,
    });
  }
  server.updatedAt = new Date();
  await em.flush();
  if (connectionChanged && server.autoConnect) await discover(ctx, em, owner, server);
  return serverView(ctx, server);
}

export async function deleteServer(em: EntityManager, owner: Owner, id: string) {
  await deleteOwned(em, McpServer, owner, id, 'MCP server');
  return { deleted: true as const, id };
}

/** POST /mcp-servers/:id/test: a real initialize + tools/list. */
export async function testServer(ctx: AppContext, em: EntityManager, owner: Owner, id: string) {
  const server = await findServer(em, owner, id);
  const outcome = await discover(ctx, em, owner, server);
  return outcome.ok
    ? {
        connected: true,
        latencyMs: outcome.latencyMs,
        serverInfo: outcome.serverInfo,
        toolCount: outcome.tools.length,
      }
    : { connected: false, latencyMs: outcome.latencyMs, error: outcome.error };
}

/**
 * The discovered tools: from the cache unless `refresh` (or never listed); 502 when listing fails
 * (RESPONSE_TOO_LARGE when the list passed the MCP cap, else UPSTREAM_ERROR).
 */
export async function serverTools(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  refresh: boolean,
) {
  const server = await findServer(em, owner, id);
  if (!refresh && server.tools && server.toolsFetchedAt) {
    return { tools: server.tools, fetchedAt: server.toolsFetchedAt.toISOString(), cached: true };
  }
  const outcome = await discover(ctx, em, owner, server);
  if (!outcome.ok)
    throw new ApiError(502, outcome.tooLarge ? 'RESPONSE_TOO_LARGE' : 'UPSTREAM_ERROR', outcome.error);
  return { tools: outcome.tools, fetchedAt: server.toolsFetchedAt!.toISOString(), cached: false };
}
