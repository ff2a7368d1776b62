import type { CoreContext } from '../common/context';
import type { Owner } from '../common/owner';
import { preparedQuery } from '../db/prepared';
import { ApiError } from '../http/errors';
import { executeInstalledTool, TIERS, type Tier } from '../marketplace';
import { executeTool, prepareMcpCall, startToolWithEvents, Tool } from '../tools';
import type { AgentTool, ChatToolCall } from './agent-context';
import type { Session, TurnAction } from './session.entity';

/** Who is speaking, for the marketplace tools they installed (metered against their quota). */
export interface Caller {
  userId: string;
  tier: Tier;
}

/** The caller's subscription tier: the session's `metadata.subscriptionTier`, else `free`. */
export function callerOf(session: Pick<Session, 'userId' | 'metadata'>): Caller {
  const tier = session.metadata?.subscriptionTier;
  return {
    userId: session.userId,
    tier: (TIERS as readonly unknown[]).includes(tier) ? (tier as Tier) : 'free',
  };
}

/** One tool call the model made, as the session's workflow runs it (docs/sessions.md "Tool calls"). */
export interface AgentToolCall {
  sessionId: string;
  /** The turn (its id is the Workflow Update that records it). */
  turnId: string;
  call: ChatToolCall;
  /** The offered tool of that name, if the model named one. */
  tool: AgentTool | null;
  owner: Owner;
  caller: Caller;
}

/** What a tool call came to: the turn's action, and what goes back to the model. */
export interface AgentToolOutcome {
  action: TurnAction;
  content: string;
}

/** The error recorded for a call whose step started before a crash: it is not run a second time. */
export const TOOL_OUTCOME_UNKNOWN =
  'The tool call was interrupted by a worker failure; it was not run again, so its outcome is unknown';

/**
 * Runs one tool call at most once. The call is kept (`session_tool_calls`) before the tool runs and
 * its outcome after: a step run again (a worker crashed, its workflow task ran elsewhere) answers
 * the kept outcome, or, for a call that started and never finished, that its outcome is unknown,
 * and never calls the tool a second time (a side effect is never silently repeated).
 */
export async function runAgentToolOnce(ctx: CoreContext, input: AgentToolCall): Promise<AgentToolOutcome> {
  const knex = ctx.orm.em.getConnection().getKnex();
  const key = [input.sessionId, input.turnId, input.call.id];
  const [kept] = await preparedQuery<{ fresh: boolean; outcome: AgentToolOutcome | null }>(
    knex,
    'session-tool-call-start',
    `with started as (
       insert into session_tool_calls (session_id, turn_id, call_id) values (?, ?, ?)
       on conflict do nothing returning true as fresh, outcome
     )
     select * from started
     union all
     select false as fresh, outcome from session_tool_calls
      where session_id = ? and turn_id = ? and call_id = ? and not exists (select 1 from started)`,
  )([...key, ...key]);
  if (kept && !kept.fresh && kept.outcome) return kept.outcome;
  const outcome = kept?.fresh
    ? await startAgentTool(ctx, input)
    : refused(input.call, TOOL_OUTCOME_UNKNOWN, input.tool ? toolIdOf(input.tool) : 'unknown');
  await preparedQuery(
    knex,
    'session-tool-call-finish',
    `update session_tool_calls set outcome = ?::jsonb, finished_at = now()
      where session_id = ? and turn_id = ? and call_id = ? and outcome is null`,
  )([JSON.stringify(outcome), ...key]);
  return outcome;
}

function refused(call: ChatToolCall, error: string, toolId = 'unknown'): AgentToolOutcome {
  return {
    action: {
      type: 'tool',
      tool: call.function.name,
      toolId,
      arguments: {},
      success: false,
      error,
      durationMs: 0,
    },
    content: JSON.stringify({ error }),
  };
}

/** The call's arguments: a JSON object, or undefined. */
function argumentsOf(call: ChatToolCall): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(call.function.arguments || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const answered = (
  offered: AgentTool,
  toolId: string,
  args: Record<string, unknown>,
  result: { success: boolean; result?: unknown; error?: string; durationMs: number },
): AgentToolOutcome => ({
  action: { type: 'tool', tool: offered.name, toolId, arguments: args, ...result },
  content: JSON.stringify(result.success ? { result: result.result } : { error: result.error }),
});

/**
 * Runs one tool call the model made: the name must be an offered tool and the arguments a JSON object
 * matching its parameters (otherwise the model is told why, and nothing runs). Custom tools run as
 * POST /tools/:id/test runs them; MCP tools through the kept MCP session; marketplace tools metered
 * against the caller's quota. Each emits `tool.called` and `tool.completed` / `tool.failed` with the
 * session id, all written before this answers.
 */
async function startAgentTool(ctx: CoreContext, input: AgentToolCall): Promise<AgentToolOutcome> {
  const offered = input.tool;
  if (!offered || offered.name !== input.call.function.name)
    return refused(input.call, `No tool named ${input.call.function.name} is available`);
  const toolId = toolIdOf(offered);
  const args = argumentsOf(input.call);
  if (!args) return refused(input.call, 'The arguments are not a JSON object', toolId);
  if (offered.ref.kind === 'custom') return runCustomTool(ctx, input, offered, args);
  const base = { sessionId: input.sessionId, toolId, toolName: offered.name };
  const { result, outcomeEvent } =
    offered.ref.kind === 'marketplace'
      ? await startToolWithEvents(
          ctx,
          input.owner,
          base,
          args,
          marketplaceCall(ctx, input.caller, offered.ref.itemId, args),
        )
      : await startToolWithEvents(ctx, input.owner, { ...base, toolName: offered.ref.toolName }, args, {
          prepare: () =>
            prepareMcpCall(ctx, input.owner, {
              serverId: (offered.ref as { serverId: string }).serverId,
              toolName: (offered.ref as { toolName: string }).toolName,
              arguments: args,
            }),
        });
  await outcomeEvent;
  return answered(offered, toolId, args, result);
}

/** A marketplace tool the caller installed, metered against their quota. */
function marketplaceCall(ctx: CoreContext, caller: Caller, itemId: string, args: Record<string, unknown>) {
  return async () => {
    const run = await executeInstalledTool(ctx, {
      userId: caller.userId,
      tier: caller.tier,
      itemId,
      arguments: args,
    });
    if (run.status === 'refused') return { success: false as const, error: run.message };
    return run.success
      ? { success: true as const, result: run.result }
      : { success: false as const, error: run.error ?? 'The tool failed' };
  };
}

async function runCustomTool(
  ctx: CoreContext,
  input: AgentToolCall,
  offered: AgentTool,
  args: Record<string, unknown>,
): Promise<AgentToolOutcome> {
  const ref = offered.ref as { toolId: string };
  const tool = await ctx.orm.em
    .fork()
    .findOne(Tool, { id: ref.toolId, account: input.owner.accountId, environment: input.owner.environment });
  if (!tool) return refused(input.call, 'The tool no longer exists', ref.toolId);
  try {
    return answered(offered, tool.id, args, await executeTool(ctx, input.owner, tool, args, input.sessionId));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const reason = `Invalid arguments: ${error.validationErrors?.join('; ') ?? error.message}`;
    const answer = refused(input.call, reason, tool.id);
    return { ...answer, action: { ...answer.action, arguments: args } as TurnAction };
  }
}

export const toolIdOf = (t: AgentTool) =>
  t.ref.kind === 'custom'
    ? t.ref.toolId
    : t.ref.kind === 'marketplace'
      ? `marketplace/${t.ref.itemId}`
      : `${t.ref.serverId}/${t.ref.toolName}`;
