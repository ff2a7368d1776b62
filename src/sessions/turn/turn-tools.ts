import type { AppContext } from '../../common/context';
import type { Owner } from '../../common/owner';
import type { AgentTool, ChatToolCall } from '../agent-context';
import type { AgentToolOutcome, Caller, OfferedTool } from '../agent-tools';
import { mockOf } from '../tool-mocks';
import { type CallControls, isCallTool, runCallTool } from './call-tools';
import { runKnowledgeTool } from './knowledge-tool';
import type { TurnListener } from './turn-listener';
import { runToolsInWorkflow } from './turn-store';

/** A tool that has not answered within this long gets a hold phrase (dead air is worse). */
export const HOLD_PHRASE_AFTER_MS = 300;

/**
 * The offered tool a call names, as the round sends it to the workflow: its name and what it runs,
 * without the description and parameter schema the model saw (the call never needs them, and they
 * would go into the workflow's history with every round).
 */
function offeredTool(tools: AgentTool[], call: ChatToolCall): OfferedTool | null {
  const tool = tools.find((t) => t.name === call.function.name);
  return tool ? { name: tool.name, ref: tool.ref } : null;
}

/** A hold phrase from the persona's `behaviors.thinking_sounds`, a different one each time if it can. */
function holdPhrase(phrases: string[] | undefined, turnId: string, round: number): string | undefined {
  const usable = (phrases ?? []).filter((p) => p.trim());
  if (!usable.length) return undefined;
  let hash = round;
  for (const c of turnId) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return usable[hash % usable.length];
}

/**
 * Runs one model round's tool calls as the session's workflow runs them: in order, each at most
 * once, recorded in its history (docs/sessions.md "Tool calls"). The listener hears each call start
 * and finish, and a hold phrase if the round has not answered within HOLD_PHRASE_AFTER_MS. A caller
 * who interrupts does not stop a round already sent: its side effects finish and are recorded.
 */
export async function runToolRound(
  ctx: AppContext,
  turn: {
    sessionId: string;
    turnId: string;
    listener: TurnListener;
    call?: CallControls;
    /** The persona's knowledge bases: `search_knowledge` runs here, at once. */
    knowledge?: { owner: Owner; baseIds: string[] };
  },
  round: {
    round: number;
    calls: ChatToolCall[];
    tools: AgentTool[];
    owner: Owner;
    caller: Caller;
    /** The session's tool mocks (a test session's), as its turn loaded them. */
    mocks: Record<string, unknown> | null;
    thinkingSounds?: string[];
  },
): Promise<AgentToolOutcome[]> {
  for (const call of round.calls)
    turn.listener.toolStarted({ id: call.id, name: call.function.name, arguments: call.function.arguments });
  const phrase = holdPhrase(round.thinkingSounds, turn.turnId, round.round);
  const hold = phrase ? setTimeout(() => turn.listener.hold(phrase), HOLD_PHRASE_AFTER_MS) : undefined;
  try {
    // the call tools act on the call at once, the knowledge search reads at once; the others run in
    // the workflow, in order
    const toolOf = (call: ChatToolCall) => round.tools.find((t) => t.name === call.function.name);
    const onCall = (call: ChatToolCall) => turn.call !== undefined && isCallTool(toolOf(call));
    const reads = (call: ChatToolCall) =>
      turn.knowledge !== undefined && toolOf(call)?.ref.kind === 'knowledge';
    const inWorkflow = round.calls.filter((call) => !onCall(call) && !reads(call));
    const fromWorkflow = inWorkflow.length
      ? await runToolsInWorkflow(ctx, turn.sessionId, {
          round: round.round,
          turnId: turn.turnId,
          calls: inWorkflow.map((call) => ({
            call,
            tool: offeredTool(round.tools, call),
            mock: mockOf(round.mocks, call),
          })),
          owner: round.owner,
          caller: round.caller,
        })
      : [];
    const outcomes: AgentToolOutcome[] = [];
    for (const call of round.calls) {
      if (onCall(call)) outcomes.push(await runCallTool(turn.call!, call, turn));
      else if (reads(call)) outcomes.push(await runKnowledgeTool(ctx, turn.knowledge!, call));
      else outcomes.push(fromWorkflow[inWorkflow.indexOf(call)]!);
    }
    outcomes.forEach(({ action }, i) => {
      if (action.type !== 'tool') return;
      const { id, function: fn } = round.calls[i];
      turn.listener.toolFinished({
        id,
        name: fn.name,
        success: action.success,
        durationMs: action.durationMs,
        ...(action.error ? { error: action.error } : {}),
      });
    });
    return outcomes;
  } finally {
    clearTimeout(hold);
  }
}
