import type { EntityManager } from '@mikro-orm/postgresql';
import { type ContextActivityRow, contextActivitiesQuery, contextActivityOf } from '../activity-log';
import type { CoreContext } from '../common/context';
import type { Owner } from '../common/owner';
import { preparedQuery } from '../db/prepared';
import {
  type InstalledTool,
  type InstalledToolRow,
  installedToolsOf,
  installedToolsQuery,
} from '../marketplace';
import { agentServersQuery, type DiscoveredTool, McpServer, withPooledMcpClient } from '../mcp';
import { type PersonaManifest, sessionManifest } from '../personas';
import { type AgentToolRow, agentToolsQuery } from '../tools';
import { type ConversationSettings, conversationSettings, systemPrompt } from './persona-prompt';
import type { Session } from './session.entity';

/** A chat message as OpenAI-compatible chat completions take it. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A tool offered to the model, and what it runs. */
export interface AgentTool {
  /** The function name the model sees (`^[A-Za-z0-9_-]{1,64}$`). */
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  ref:
    | { kind: 'custom'; toolId: string }
    | { kind: 'mcp'; serverId: string; toolName: string }
    /** A marketplace tool the session's user installed (metered against the user's quota). */
    | { kind: 'marketplace'; itemId: string };
}

/** What the next turn sends to the model, besides the caller's words (GET /sessions/:id/context). */
export interface AgentContext {
  system: string;
  /** The persona's conversation settings, with the model's defaults filled in. */
  conversation: ConversationSettings;
  tools: AgentTool[];
  /** The conversation so far (the last HISTORY_TURNS turns). */
  history: ChatMessage[];
}

/** Activities of the caller rendered into the system prompt. */
export const CONTEXT_ACTIVITIES = 20;
/** Earlier turns sent back to the model. */
export const HISTORY_TURNS = 10;

/** What a turn needs of its session: who owns it, its persona, its caller. */
export type SessionRef = Pick<
  Session,
  'id' | 'account' | 'environment' | 'personaId' | 'personaVersion' | 'userId' | 'metadata' | 'status'
>;

export const ownerOf = (s: Pick<Session, 'account' | 'environment'>): Owner => ({
  accountId: s.account,
  environment: s.environment,
});

const functionName = (text: string) =>
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

/** What agentTools is given of the environment's tools (agentContextRows reads them with the rest). */
export interface ToolRows {
  custom: AgentToolRow[];
  servers: {
    id: string;
    name: string;
    tools: DiscoveredTool[] | null;
    tools_fetched_at: string | Date | null;
  }[];
  installed: InstalledTool[];
}

/**
 * Every custom tool and every tool of the environment's MCP servers, then the marketplace tools the
 * caller installed (`market__<item id>`), named for the model. A server whose stored tool list is
 * older than AGENT_TOOLS_TTL_MS is listed again (loaded whole, for its connection).
 */
export async function agentTools(
  ctx: CoreContext,
  em: EntityManager,
  owner: Owner,
  rows: ToolRows,
): Promise<AgentTool[]> {
  const tools: AgentTool[] = rows.custom.map((t) => ({
    name: functionName(t.name),
    description: t.description ?? t.name,
    parameters: t.parameters,
    ref: { kind: 'custom', toolId: t.id },
  }));
  const discovered = await Promise.all(
    rows.servers.map(async (row) => {
      try {
        const listed =
          storedTools(row.tools, row.tools_fetched_at) ??
          (await serverTools(ctx, em, owner, await em.findOneOrFail(McpServer, { id: row.id })));
        return listed.map(
          (t): AgentTool => ({
            name: functionName(`${row.name}__${t.name}`),
            description: t.description ?? t.name,
            parameters: t.inputSchema ?? { type: 'object', properties: {} },
            ref: { kind: 'mcp', serverId: row.id, toolName: t.name },
          }),
        );
      } catch (error) {
        ctx.logger.warn(
          { err: error, serverId: row.id },
          'MCP server unavailable; its tools are left out of this turn',
        );
        return [];
      }
    }),
  );
  const market = rows.installed.map(
    (t): AgentTool => ({
      name: functionName(`market__${t.itemId}`),
      description: t.description,
      parameters: t.inputSchema ?? { type: 'object', properties: {} },
      ref: { kind: 'marketplace', itemId: t.itemId },
    }),
  );
  const seen = new Set<string>();
  return [...tools, ...discovered.flat(), ...market].filter((t) => !seen.has(t.name) && seen.add(t.name));
}

/**
 * Everything a turn's context is built from besides the persona, in one statement: the caller's
 * recent activities, the environment's custom tools and MCP servers (with their stored tool lists),
 * the caller's installed marketplace tools and the session's last HISTORY_TURNS turns. Each part is a
 * JSON array in the order its own query gives.
 */
async function agentContextRows(em: EntityManager, session: SessionRef, withTools: boolean) {
  const owner = ownerOf(session);
  const activities = contextActivitiesQuery(owner, session.userId, session.personaId, CONTEXT_ACTIVITIES);
  const installed = installedToolsQuery(session.userId);
  const custom = agentToolsQuery(owner);
  const servers = agentServersQuery(owner);
  const asJson = (sql: string) => `(select coalesce(json_agg(r), '[]'::json) from (${sql}) r)`;
  const none = `'[]'::json`;
  const [row] = await preparedQuery<{
    activities: ContextActivityRow[];
    custom: ToolRows['custom'];
    servers: ToolRows['servers'];
    installed: InstalledToolRow[];
    history: { text: string; reply: string }[];
  }>(
    em.getConnection().getKnex(),
    withTools ? 'session-context-tools' : 'session-context',
    `select ${asJson(activities.sql)} as activities,
            ${withTools ? asJson(custom.sql) : none} as custom,
            ${withTools ? asJson(servers.sql) : none} as servers,
            ${withTools ? asJson(installed.sql) : none} as installed,
            ${asJson('select text, reply from (select index, text, coalesce(spoken_text, reply) as reply from session_turns where session_id = ? order by index desc limit ?) t order by index')} as history`,
  )([
    ...activities.bindings,
    ...(withTools ? [...custom.bindings, ...servers.bindings, ...installed.bindings] : []),
    session.id,
    HISTORY_TURNS,
  ]);
  return {
    activities: row.activities.map(contextActivityOf),
    tools: { custom: row.custom, servers: row.servers, installed: installedToolsOf(row.installed) },
    history: row.history,
  };
}

/** The manifest of the persona version the session runs, or an empty one if the persona was deleted. */
export async function sessionPersona(
  em: EntityManager,
  session: Pick<Session, 'personaId' | 'personaVersion'>,
): Promise<PersonaManifest> {
  return sessionManifest(em, session);
}

/** What the next turn sends: the system prompt from the persona and the caller's activities, the tools, the history. */
export async function buildAgentContext(
  ctx: CoreContext,
  em: EntityManager,
  session: SessionRef,
  /** The persona's manifest when the caller has it already (loaded with the session). */
  persona?: PersonaManifest,
): Promise<AgentContext> {
  const withTools = Boolean(ctx.config.llm.baseUrl);
  const [manifest, rows] = await Promise.all([
    persona ?? sessionPersona(em, session),
    agentContextRows(em, session, withTools),
  ]);
  const tools = withTools ? await agentTools(ctx, em, ownerOf(session), rows.tools) : [];
  // what the agent said is what the caller heard: an interrupted reply counts only up to where it stopped
  const history: ChatMessage[] = rows.history.flatMap((t) => [
    { role: 'user' as const, content: t.text },
    ...(t.reply ? [{ role: 'assistant' as const, content: t.reply }] : []),
  ]);
  return {
    system: systemPrompt(manifest, session.userId, rows.activities),
    conversation: conversationSettings(manifest, ctx.config.llm.model),
    tools,
    history,
  };
}

export { type ConversationSettings, systemPrompt } from './persona-prompt';
