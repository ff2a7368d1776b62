import type { EntityManager } from '@mikro-orm/postgresql';
import { accountPlanQuery } from '../accounts';
import { type ContextActivityRow, contextActivitiesQuery, contextActivityOf } from '../activity-log';
import type { CoreContext } from '../common/context';
import type { Owner } from '../common/owner';
import { preparedQuery } from '../db/prepared';
import { type InstalledToolRow, installedToolsOf, installedToolsQuery, type Tier } from '../marketplace';
import { agentServersQuery } from '../mcp';
import { type PersonaManifest, type PersonaToolRef, sessionManifest } from '../personas';
import { agentToolsQuery } from '../tools';
import { type AgentTool, agentTools, type ToolRows } from './offered-tools';
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

/** The ids a persona's tools name, by kind. */
function namedIds(refs: readonly PersonaToolRef[]) {
  const of = (type: PersonaToolRef['type']) => [
    ...new Set(refs.filter((r) => r.type === type).map((r) => r.id)),
  ];
  return { tools: of('tool'), servers: of('mcp_server'), items: of('marketplace') };
}

/**
 * Everything a turn's context is built from besides the persona, in one statement: the caller's
 * recent activities, the custom tools and MCP servers (with their stored tool lists) the persona
 * names in the session's environment, the marketplace tools it names that its account installed,
 * the caller's installed marketplace tools, the account's plan and the session's last HISTORY_TURNS
 * turns. Each part is a JSON array in the order its own query gives.
 */
async function agentContextRows(
  em: EntityManager,
  session: SessionRef,
  refs: readonly PersonaToolRef[] | null,
) {
  const owner = ownerOf(session);
  const named = namedIds(refs ?? []);
  const activities = contextActivitiesQuery(owner, session.userId, session.personaId, CONTEXT_ACTIVITIES);
  const toolQueries = [
    agentToolsQuery(owner, named.tools),
    agentServersQuery(owner, named.servers),
    installedToolsQuery(owner.accountId, named.items),
    installedToolsQuery(session.userId),
  ];
  const plan = accountPlanQuery(owner.accountId);
  const asJson = (sql: string) => `(select coalesce(json_agg(r), '[]'::json) from (${sql}) r)`;
  const tools = (i: number) => (refs ? asJson(toolQueries[i].sql) : `'[]'::json`);
  const [row] = await preparedQuery<{
    activities: ContextActivityRow[];
    custom: ToolRows['custom'];
    servers: ToolRows['servers'];
    account_installed: InstalledToolRow[];
    installed: InstalledToolRow[];
    plan: Tier | null;
    history: { text: string; reply: string }[];
  }>(
    em.getConnection().getKnex(),
    refs ? 'session-context-tools' : 'session-context',
    `select ${asJson(activities.sql)} as activities,
            ${tools(0)} as custom, ${tools(1)} as servers,
            ${tools(2)} as account_installed, ${tools(3)} as installed,
            (${plan.sql}) as plan,
            ${asJson('select text, reply from (select index, text, coalesce(spoken_text, reply) as reply from session_turns where session_id = ? order by index desc limit ?) t order by index')} as history`,
  )([
    ...activities.bindings,
    ...(refs ? toolQueries.flatMap((q) => q.bindings) : []),
    ...plan.bindings,
    session.id,
    HISTORY_TURNS,
  ]);
  return {
    activities: row.activities.map(contextActivityOf),
    tools: {
      custom: row.custom,
      servers: row.servers,
      accountInstalled: installedToolsOf(row.account_installed),
      installed: installedToolsOf(row.installed),
      plan: row.plan ?? 'free',
    },
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
  const manifest = persona ?? (await sessionPersona(em, session));
  // no model to call (no LLM_BASE_URL): no tools to offer
  const refs = ctx.config.llm.baseUrl ? (manifest.tools ?? []) : null;
  const rows = await agentContextRows(em, session, refs);
  const tools = refs ? await agentTools(ctx, em, ownerOf(session), refs, rows.tools) : [];
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

export type { AgentTool } from './offered-tools';
export { type ConversationSettings, systemPrompt } from './persona-prompt';
