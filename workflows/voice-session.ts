import {
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AgentToolOutcome } from '../src/sessions/agent-tools';
import type { TurnRecord } from '../src/sessions/turn-types';
import {
  type CommandInput,
  type CommandRun,
  commandUpdate,
  endUpdate,
  type SessionEnd,
  sessionStateQuery,
  type ToolRoundInput,
  toolsUpdate,
  turnUpdate,
} from './messages';
import { executeVoiceGraph } from './voice-graph';

export interface VoiceSessionInput {
  sessionId: string;
  /** SESSION_IDLE_TIMEOUT_S in ms: with no turn for this long the session ends (`idle_timeout`). */
  idleTimeoutMs: number;
  /** After this many turns in one run the workflow continues as new, so its history stays bounded. */
  turnsPerRun: number;
  /** Turns taken by earlier runs (continue-as-new). */
  turnCount?: number;
}

/** Recording and ending, retried until the database answers. */
const { recordTurn, endSession } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '45 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});
/**
 * One tool call: each within its own timeout (30 s for a webhook or an MCP call). A retry is safe: a
 * call that started once is never run again (src/sessions/agent-tools.ts).
 */
const { runAgentTool } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 10,
  },
});

/** Runs a voice command's graph here, step by step (its steps are this workflow's local activities). */
async function runVoiceCommand({ plan }: CommandInput): Promise<CommandRun> {
  const t0 = Date.now();
  try {
    const run = await executeVoiceGraph(plan, { showDetails: false });
    const steps = run.trace.steps;
    if (run.trace.error) {
      const { nodeId, message } = run.trace.error;
      const failure = `Node ${nodeId} failed: ${message}`;
      return { status: 'failed', speech: [], failure, durationMs: Date.now() - t0, steps };
    }
    const speech = (run.view?.output as { speech?: string[] } | null)?.speech ?? [];
    return { status: 'completed', speech, failure: null, durationMs: Date.now() - t0, steps };
  } catch (failure) {
    const cause = ((failure as Error).cause as Error | undefined) ?? (failure as Error);
    const reason = cause?.message ?? String(failure);
    return { status: 'failed', speech: [], failure: reason, durationMs: Date.now() - t0, steps: [] };
  }
}

/** Runs one model round's tool calls, in order (docs/sessions.md "Tool calls"). */
async function runToolRound(sessionId: string, round: ToolRoundInput): Promise<AgentToolOutcome[]> {
  const outcomes: AgentToolOutcome[] = [];
  for (const { call, tool, mock } of round.calls) {
    setCurrentDetails(`Tool: ${call.function.name}`);
    outcomes.push(
      await runAgentTool({
        sessionId,
        turnId: round.turnId,
        call,
        tool,
        // a field of the activity's input only: no command changes, so no patch
        ...(mock !== undefined ? { mock } : {}),
        owner: round.owner,
        caller: round.caller,
      }),
    );
  }
  return outcomes;
}

/**
 * One voice session (workflow id = the `sess_…` id). The API answers each turn (docs/sessions.md
 * "Where each part runs"); what must be durable comes here as Workflow Updates, one at a time: a
 * model round's tool calls (`tools`), a voice command with side effects (`command`), and each turn
 * once it has ended (`turn`, whose result is the turn as recorded), so the Web UI shows the
 * conversation turn by turn. With no turn for `idleTimeoutMs` (one durable timer per idle period)
 * the session ends as `idle_timeout`; the `end` update ends it at once. Every `turnsPerRun` turns the
 * workflow continues as new, so a long conversation's history stays bounded.
 */
export async function voiceSessionWorkflow(input: VoiceSessionInput): Promise<SessionEnd> {
  const state = { turnCount: input.turnCount ?? 0, turnsThisRun: 0, busy: false, idleSince: Date.now() };
  let status: 'active' | 'ending' | 'ended' = 'active';
  let ended: SessionEnd | undefined;
  const dueToContinueAsNew = () =>
    state.turnsThisRun >= input.turnsPerRun || workflowInfo().continueAsNewSuggested;
  /**
   * One update's work at a time, in the order they came: each takes a ticket and waits for its turn
   * (a condition alone would let every waiter through at once when the one before it finishes).
   */
  const lock = { issued: 0, serving: 0 };
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    const ticket = lock.issued++;
    await condition(() => lock.serving === ticket);
    state.busy = true;
    try {
      return await work();
    } finally {
      state.busy = false;
      state.idleSince = Date.now();
      lock.serving++;
    }
  };
  const refuseUnlessActive = () => {
    if (status !== 'active') throw new Error('The session has ended');
  };

  setHandler(sessionStateQuery, () => ({ status, turnCount: state.turnCount }));
  setHandler(toolsUpdate, (round) => exclusive(() => runToolRound(input.sessionId, round)), {
    validator: (_round: ToolRoundInput) => refuseUnlessActive(),
  });
  setHandler(commandUpdate, (command) => exclusive(() => runVoiceCommand(command)), {
    validator: (_command: CommandInput) => refuseUnlessActive(),
  });
  setHandler(
    turnUpdate,
    (turn) =>
      exclusive(async (): Promise<TurnRecord> => {
        state.turnsThisRun++;
        const recorded = await recordTurn({
          sessionId: input.sessionId,
          updateId: currentUpdateInfo()!.id,
          ...turn,
        });
        state.turnCount = Math.max(state.turnCount, recorded.index);
        setCurrentDetails(`Turn ${recorded.index}: “${turn.text}” → “${turn.spokenText}”`);
        return recorded;
      }),
    {
      validator: (turn) => {
        refuseUnlessActive();
        if (typeof turn?.text !== 'string' || turn.text.trim() === '') throw new Error('text is required');
      },
    },
  );
  const finish = async (reason: 'ended' | 'idle_timeout') => {
    status = 'ending';
    // after the work already queued (a tool round, a turn's record), in order
    ended = await exclusive(() => endSession({ sessionId: input.sessionId, reason }));
    status = 'ended';
    setCurrentDetails(`Ended (${reason}) after ${ended.turnCount} turns`);
  };
  setHandler(endUpdate, async () => {
    if (status === 'active') await finish('ended');
    await condition(() => status === 'ended');
    return ended!;
  });

  setCurrentDetails('Waiting for the first turn');
  // one timer per idle period, not one per turn: a timer that fires after a turn waits out the rest
  while (status === 'active') {
    const rest = state.idleSince + input.idleTimeoutMs - Date.now();
    const woke =
      rest > 0 && (await condition(() => status !== 'active' || (!state.busy && dueToContinueAsNew()), rest));
    if (status !== 'active') break;
    if (woke) {
      await condition(allHandlersFinished);
      if (status === 'active' && !state.busy) {
        await continueAsNew<typeof voiceSessionWorkflow>({ ...input, turnCount: state.turnCount });
      }
    } else if (state.busy) {
      await condition(() => !state.busy || status !== 'active');
    } else if (Date.now() - state.idleSince >= input.idleTimeoutMs) {
      await finish('idle_timeout');
    }
  }
  await condition(() => status === 'ended');
  await condition(allHandlersFinished);
  return ended!;
}
