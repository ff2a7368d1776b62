import type { EntityManager } from '@mikro-orm/postgresql';
import type { CoreContext } from '../common/context';
import type { Owner } from '../common/owner';
import type { InstalledTool, Tier } from '../marketplace';
import { type DiscoveredTool, McpServer, withPooledMcpClient } from '../mcp';
import type { PersonaToolRef } from '../personas';
import type { AgentToolRow } from '../tools';

/** A tool offered to the model, and what it runs. */
export interface AgentTool {
  /** The function name the model sees (`^[A-Za-z0-9_-]{1,64}$`). */
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  ref:
    | { kind: 'custom'; toolId: string }
    | { kind: 'mcp'; serverId: string; toolName: string }
    /**
     * A marketplace tool: one the caller installed (metered against the caller's quota), or, with
     * `installedBy`, one the persona names that its account installed (metered against the account
     * at its plan's tier).
     */
    | { kind: 'marketplace'; itemId: string; installedBy?: string; tier?: Tier }
    /** A built-in call tool (src/sessions/turn/call-tools.ts): the call's transport runs it. */
    | { kind: 'call'; control: 'end_call' | 'transfer_call' | 'press_digits' }
    /** `search_knowledge`: the persona's knowledge bases, searched in the turn (src/sessions/turn/knowledge-tool.ts). */
    | { kind: 'knowledge' };
}

/** A tool's name as the model sees it (`^[A-Za-z0-9_-]{1,64}$`). */
export const functionName = (text: string) =>
  text
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64) || 'tool';

/**
 * How long a server's discovered tools (`mcp_servers.tools`, as `GET /mcp-servers/:id/tools` shows
 * them) are offered without listing them again. Within it a turn lists nothing; past it the turn
 * lists the server's tools on its kept connection and stores them for the next turns (and for
 * `GET /sessions/:id/context`, which reads the same stored list). `?refresh=true` on the tools
 * endpoint refreshes at once.
 */
export const AGENT_TOOLS_TTL_MS = 60_000;

/** A server's stored tool list while it is younger than AGENT_TOOLS_TTL_MS, else undefined. */
const storedTools = (
  tools: DiscoveredTool[] | null | undefined,
  fetchedAt: Date | string | null | undefined,
) =>
  tools && fetchedAt && Date.now() - new Date(fetchedAt).getTime() < AGENT_TOOLS_TTL_MS ? tools : undefined;

async function serverTools(ctx: CoreContext, em: EntityManager, owner: Owner, server: McpServer) {
  const stored = storedTools(server.tools, server.toolsFetchedAt);
  if (stored) return stored;
  const listed = await withPooledMcpClient(ctx, em, owner, server, (client) => client.listTools());
  const tools: DiscoveredTool[] = listed.tools.map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    inputSchema: (t.inputSchema as Record<string, unknown>) ?? { type: 'object', properties: {} },
  }));
  // the cache columns only: updated_at (the server's configuration version) stays as it is
  await em.getConnection().execute(
    `update mcp_servers set tools = ?::jsonb, tool_count = ?, tools_fetched_at = now(), status = 'connected',
         last_connected_at = now(), last_error = null where id = ?`,
    [JSON.stringify(tools), tools.length, server.id],
  );
  return tools;
}

/** What agentTools is given: the rows of the tools the persona names, and the caller's installations. */
export interface ToolRows {
  custom: AgentToolRow[];
  servers: {
    id: string;
    name: string;
    tools: DiscoveredTool[] | null;
    tools_fetched_at: string | Date | null;
  }[];
  /** The marketplace tools the persona names that its account installed (metered against the account). */
  accountInstalled: InstalledTool[];
  /** The marketplace tools the caller installed (metered against the caller's quota). */
  installed: InstalledTool[];
  /** The account's plan: the tier its own installations are metered at. */
  plan: Tier;
}

const customTool = (t: AgentToolRow): AgentTool => ({
  name: functionName(t.name),
  description: t.description ?? t.name,
  parameters: t.parameters,
  ref: { kind: 'custom', toolId: t.id },
});

const marketTool = (t: InstalledTool, payer?: { installedBy: string; tier: Tier }): AgentTool => ({
  name: functionName(`market__${t.itemId}`),
  description: t.description,
  parameters: t.inputSchema ?? { type: 'object', properties: {} },
  ref: { kind: 'marketplace', itemId: t.itemId, ...payer },
});

/** A named MCP server's tools (those of its allow-list, when it has one); none while it is unreachable. */
async function offeredServerTools(
  ctx: CoreContext,
  em: EntityManager,
  owner: Owner,
  row: ToolRows['servers'][number],
  allow: string[] | undefined,
): Promise<AgentTool[]> {
  try {
    const listed =
      storedTools(row.tools, row.tools_fetched_at) ??
      (await serverTools(ctx, em, owner, await em.findOneOrFail(McpServer, { id: row.id })));
    return listed
      .filter((t) => !allow || allow.includes(t.name))
      .map((t) => ({
        name: functionName(`${row.name}__${t.name}`),
        description: t.description ?? t.name,
        parameters: t.inputSchema ?? { type: 'object', properties: {} },
        ref: { kind: 'mcp', serverId: row.id, toolName: t.name },
      }));
  } catch (error) {
    ctx.logger.warn(
      { err: error, serverId: row.id },
      'MCP server unavailable; its tools are left out of this turn',
    );
    return [];
  }
}

/**
 * The tools the persona names (docs/personas.md "Tools"), in its order and named for the model: its
 * custom tools, its MCP servers' tools (`<server>__<tool>`), the marketplace tools its account
 * installed (`market__<item id>`); then the marketplace tools the caller installed. A named tool of
 * another environment, deleted, or uninstalled is left out. A server whose stored tool list is older
 * than AGENT_TOOLS_TTL_MS is listed again (loaded whole, for its connection). Two tools under one
 * name (refused when the persona is saved) keep the first.
 */
export async function agentTools(
  ctx: CoreContext,
  em: EntityManager,
  owner: Owner,
  refs: readonly PersonaToolRef[],
  rows: ToolRows,
): Promise<AgentTool[]> {
  const custom = new Map(rows.custom.map((t) => [t.id, t]));
  const servers = new Map(rows.servers.map((s) => [s.id, s]));
  const market = new Map(rows.accountInstalled.map((t) => [t.itemId, t]));
  const payer = { installedBy: owner.accountId, tier: rows.plan };
  const named = await Promise.all(
    refs.map(async (ref): Promise<AgentTool[]> => {
      if (ref.type === 'tool') return custom.has(ref.id) ? [customTool(custom.get(ref.id)!)] : [];
      if (ref.type === 'marketplace')
        return market.has(ref.id) ? [marketTool(market.get(ref.id)!, payer)] : [];
      const server = servers.get(ref.id);
      return server ? offeredServerTools(ctx, em, owner, server, ref.tools) : [];
    }),
  );
  const seen = new Set<string>();
  return [...named.flat(), ...rows.installed.map((t) => marketTool(t))].filter(
    (t) => !seen.has(t.name) && seen.add(t.name),
  );
}
