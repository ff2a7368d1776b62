import type { Knex } from 'knex';
import type { CoreContext } from '../common/context';
import type { Owner } from '../common/owner';
import { ApiError } from '../http/errors';
import { executeInstalledTool, TIERS, type Tier } from '../marketplace';
import {
  executeTool,
  prepareMcpCall,
  startToolWithEvents,
  Tool,
  type ToolCall,
  type ToolEventWriter,
  type ToolExecutionResult,
} from '../tools';
import type { AgentTool, ChatToolCall } from './agent-context';
import { finishKeptCall, type KeptCall, type KeptCallKey, startKeptCall } from './kept-tool-calls';
import type { Session, TurnAction } from './session.entity';
import { type CallMock, mockedToolOutcome } from './tool-mocks';
import type { AgentToolOutcome } from './turn-types';

/** What a tool call needs of the tool it names: the name the model used and what it runs. */
export type OfferedTool = Pick<AgentTool, 'name' | 'ref'>;

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
  /**
   * The offered tool of that name, if the model named one: its name and what it runs (the round
   * carries no description or parameter schema; older rounds did, and are read the same way).
   */
  tool: OfferedTool | null;
  owner: Owner;
  caller: Caller;
  /** A test session's mock of the call, as its turn loaded them (absent: looked up when run). */
  mock?: CallMock;
}

export type { AgentToolOutcome } from './turn-types';

/** The error recorded for a call whose step started before a crash: it is not run a second time. */
export const TOOL_OUTCOME_UNKNOWN =
  'The tool call was interrupted by a worker failure; it was not run again, so its outcome is unknown';

/**
 * Runs one tool call at most once. The call is kept (`session_tool_calls`) before the tool runs and
 * its outcome after: a step run again (a worker crashed, its workflow task ran elsewhere) answers
 * the kept outcome, or, for a call that started and never finished, that its outcome is unknown,
 * and never calls the tool a second time (a side effect is never silently repeated). A test
 * session's mocked tool is answered from its mock and not called (src/sessions/tool-mocks.ts).
 */
export async function runAgentToolOnce(ctx: CoreContext, input: AgentToolCall): Promise<AgentToolOutcome> {
  const knex = ctx.orm.em.getConnection().getKnex();
  const mocked = await mockedToolOutcome(knex, input);
  if (mocked) return mocked;
  const key: KeptCallKey = [input.sessionId, input.turnId, input.call.id];
  const direct = directCall(ctx, input);
  if (direct) return runDirectCallOnce(knex, input, key, direct);
  const kept = await startKeptCall(knex, key);
  if (!kept.fresh && kept.outcome) return kept.outcome;
  const outcome = kept.fresh ? await startAgentTool(ctx, input) : outcomeUnknown(input);
  await finishKeptCall(knex, key, outcome);
  return outcome;
}

/**
 * An MCP or marketplace call with valid arguments: its record and its events share statements
 * (the call kept with `tool.called`, its outcome with `tool.completed` / `tool.failed`).
 */
async function runDirectCallOnce(
  knex: Knex,
  input: AgentToolCall,
  key: KeptCallKey,
  direct: DirectCall,
): Promise<AgentToolOutcome> {
  let kept: KeptCall | undefined;
  const writer: ToolEventWriter = {
    called: async (event) => {
      kept = await startKeptCall(knex, key, event);
      return kept.fresh;
    },
    finished: (event, result) => finishKeptCall(knex, key, direct.answer(result), event),
  };
  const started = await startToolWithEvents(input.owner, direct.base, direct.args, direct.call, writer);
  if (started) {
    await started.outcomeEvent;
    return direct.answer(started.result);
  }
  if (kept?.outcome) return kept.outcome;
  const outcome = outcomeUnknown(input);
  await finishKeptCall(knex, key, outcome);
  return outcome;
}

const outcomeUnknown = (input: AgentToolCall) =>
  refused(input.call, TOOL_OUTCOME_UNKNOWN, input.tool ? toolIdOf(input.tool) : 'unknown');

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

/** The turn's action for a call that ran: the fields its schema declares, nothing else. */
const answered = (
  offered: OfferedTool,
  toolId: string,
  args: Record<string, unknown>,
  { success, result, error, errorCode, statusCode, durationMs }: ToolExecutionResult,
): AgentToolOutcome => ({
  action: {
    type: 'tool',
    tool: offered.name,
    toolId,
    arguments: args,
    success,
    ...(result !== undefined ? { result } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(errorCode ? { errorCode } : {}),
    ...(statusCode !== undefined ? { statusCode } : {}),
    durationMs,
  },
  content: JSON.stringify(success ? { result } : { error }),
});

/** A call to an offered MCP or marketplace tool with arguments that are a JSON object. */
interface DirectCall {
  base: { sessionId: string; toolId: string; toolName: string };
  args: Record<string, unknown>;
  call: ToolCall;
  answer: (result: ToolExecutionResult) => AgentToolOutcome;
}

function directCall(ctx: CoreContext, input: AgentToolCall): DirectCall | null {
  const offered = input.tool;
  const args = argumentsOf(input.call);
  if (!offered || offered.name !== input.call.function.name || !args) return null;
  const { ref } = offered;
  // a call tool and the knowledge search never reach the workflow (the turn runs them); a custom tool
  // runs as POST /tools/:id/test
  if (ref.kind === 'custom' || ref.kind === 'call' || ref.kind === 'knowledge') return null;
  const toolId = toolIdOf(offered);
  const answer = (result: ToolExecutionResult) => answered(offered, toolId, args, result);
  if (ref.kind === 'marketplace') {
    const base = { sessionId: input.sessionId, toolId, toolName: offered.name };
    // the account's installation pays for a tool its persona names; the caller's own, for theirs
    const payer = ref.installedBy ? { userId: ref.installedBy, tier: ref.tier ?? 'free' } : input.caller;
    return { base, args, answer, call: marketplaceCall(ctx, payer, ref.itemId, args) };
  }
  const base = { sessionId: input.sessionId, toolId, toolName: ref.toolName };
  const call = {
    prepare: () =>
      prepareMcpCall(ctx, input.owner, { serverId: ref.serverId, toolName: ref.toolName, arguments: args }),
  };
  return { base, args, answer, call };
}

/**
 * A call that is refused (no offered tool of that name, arguments that are not a JSON object) or a
 * custom tool, run as POST /tools/:id/test runs it. Custom tools emit their own events.
 */
async function startAgentTool(ctx: CoreContext, input: AgentToolCall): Promise<AgentToolOutcome> {
  const offered = input.tool;
  if (!offered || offered.name !== input.call.function.name)
    return refused(input.call, `No tool named ${input.call.function.name} is available`);
  const toolId = toolIdOf(offered);
  const args = argumentsOf(input.call);
  if (!args) return refused(input.call, 'The arguments are not a JSON object', toolId);
  if (offered.ref.kind === 'call') return refused(input.call, 'A call tool is run by its call', toolId);
  return runCustomTool(ctx, input, offered, args);
}

/** An installed marketplace tool, metered against the quota of whoever installed it. */
function marketplaceCall(ctx: CoreContext, payer: Caller, itemId: string, args: Record<string, unknown>) {
  return async () => {
    const run = await executeInstalledTool(ctx, {
      userId: payer.userId,
      tier: payer.tier,
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
  offered: OfferedTool,
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

export const toolIdOf = (t: OfferedTool) =>
  t.ref.kind === 'custom'
    ? t.ref.toolId
    : t.ref.kind === 'marketplace'
      ? `marketplace/${t.ref.itemId}`
      : t.ref.kind === 'call'
        ? `call/${t.ref.control}`
        : t.ref.kind === 'knowledge'
          ? 'knowledge/search'
          : `${t.ref.serverId}/${t.ref.toolName}`;
