import {
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  deprecatePatch,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
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
  turnLeaseSignal,
  turnUpdate,
} from './messages';
import { TurnLeases } from './turn-leases';
import { pinnedWhenVersioned } from './versioning';
import { executeVoiceGraph } from './voice-graph';

export interface VoiceSessionInput {
  sessionId: string;
  /** SESSION_IDLE_TIMEOUT_S in ms: with no turn under way for this long the session ends (`idle_timeout`). */
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

/** What one run of a session's workflow keeps while it runs. */
interface SessionRun {
  input: VoiceSessionInput;
  status: 'active' | 'ending' | 'ended';
  ended?: SessionEnd;
  turnCount: number;
  turnsThisRun: number;
  /** An update's work is running (they run one at a time). */
  busy: boolean;
  /** When the session last heard the end of a turn (workflow time): idleness counts from there. */
  idleSince: number;
  /** The turns under way (docs/sessions.md "Idleness"). */
  leases: TurnLeases;
}

/**
 * Turn leases came with the patch `session-turn-leases`; every run records its marker since then and
 * none from before it is open, so the patch is deprecated (retired: architecture.md "Changing a
 * running workflow"). Runs that recorded the marker still replay; a later release removes the call.
 */
function deprecatedLeasesPatch(): TurnLeases {
  deprecatePatch('session-turn-leases');
  return new TurnLeases();
}

/** The session is busy with an update, or a turn under way holds it. */
const held = (run: SessionRun) => run.busy || run.leases.any();

/** An update for `turnId` is taken while the session is active, or while it ends if that turn holds it. */
function refuseUnlessOpen(run: SessionRun, turnId: string): void {
  if (run.status === 'active') return;
  if (run.status === 'ending' && run.leases.holds(turnId, Date.now())) return;
  throw new Error('The session has ended');
}

/**
 * Waits until the turns under way have ended, or until the next lease lapses; a lapsed lease (its
 * API process died) is dropped, and the session's idleness counts from when its turn was last heard of.
 */
async function waitOnTurnLeases(run: SessionRun, stillWaiting: () => boolean): Promise<void> {
  const leases = run.leases;
  const lastHeard = leases.dropLapsed(Date.now());
  if (lastHeard !== undefined) run.idleSince = Math.max(run.idleSince, lastHeard);
  const next = leases.nextLapseIn(Date.now());
  if (next !== undefined) await condition(() => !leases.any() || !stillWaiting(), next);
}

/**
 * One voice session (workflow id = the `sess_…` id). The API answers each turn (docs/sessions.md
 * "Where each part runs"); what must be durable comes here as Workflow Updates, one at a time: a
 * model round's tool calls (`tools`), a voice command with side effects (`command`), and each turn
 * once it has ended (`turn`, whose result is the turn as recorded), so the Web UI shows the
 * conversation turn by turn. A turn under way holds the session open (`turnLease`), so the session
 * ends as `idle_timeout` only after `idleTimeoutMs` with no turn under way, counted from the end of
 * the last one (one durable timer per idle period); the `end` update ends it once the turn under way
 * is recorded. Every `turnsPerRun` turns the workflow continues as new, so a long conversation's
 * history stays bounded.
 */
export async function voiceSessionWorkflow(input: VoiceSessionInput): Promise<SessionEnd> {
  const run: SessionRun = {
    input,
    status: 'active',
    turnCount: input.turnCount ?? 0,
    turnsThisRun: 0,
    busy: false,
    idleSince: Date.now(),
    leases: deprecatedLeasesPatch(),
  };
  /**
   * One update's work at a time, in the order they came: each takes a ticket and waits for its turn
   * (a condition alone would let every waiter through at once when the one before it finishes).
   */
  const lock = { issued: 0, serving: 0 };
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    const ticket = lock.issued++;
    await condition(() => lock.serving === ticket);
    run.busy = true;
    try {
      return await work();
    } finally {
      run.busy = false;
      run.idleSince = Date.now();
      lock.serving++;
    }
  };
  const finish = async (reason: 'ended' | 'idle_timeout') => {
    run.status = 'ending';
    // the turn under way is recorded first; then the end, after the work already queued, in order
    while (run.leases.any()) await waitOnTurnLeases(run, () => true);
    run.ended = await exclusive(() => endSession({ sessionId: input.sessionId, reason }));
    run.status = 'ended';
    setCurrentDetails(`Ended (${reason}) after ${run.ended.turnCount} turns`);
  };
  setSessionHandlers(run, exclusive, finish);
  setCurrentDetails('Waiting for the first turn');
  await untilSessionEnds(run, finish);
  await condition(() => run.status === 'ended');
  await condition(allHandlersFinished);
  return run.ended!;
}

function setSessionHandlers(
  run: SessionRun,
  exclusive: <T>(work: () => Promise<T>) => Promise<T>,
  finish: (reason: 'ended') => Promise<void>,
): void {
  const { sessionId } = run.input;
  setHandler(sessionStateQuery, () => ({
    status: run.status,
    turnCount: run.turnCount,
    turnsUnderWay: run.leases.turnIds(),
  }));
  setHandler(turnLeaseSignal, ({ turnId, leaseMs }) => {
    const now = Date.now();
    // an ending session takes no new turn
    if (run.status !== 'active' && !run.leases.holds(turnId, now)) return;
    if (leaseMs > 0) return run.leases.hold(turnId, leaseMs, now);
    // the turn ended without a record (it failed): the caller was heard until now
    run.leases.end(turnId);
    run.idleSince = Math.max(run.idleSince, now);
  });
  setHandler(toolsUpdate, (round) => exclusive(() => runToolRound(sessionId, round)), {
    validator: (round: ToolRoundInput) => refuseUnlessOpen(run, round.turnId),
  });
  setHandler(commandUpdate, (command) => exclusive(() => runVoiceCommand(command)), {
    validator: (command: CommandInput) => refuseUnlessOpen(run, command.turnId),
  });
  setHandler(
    turnUpdate,
    (turn) =>
      exclusive(async (): Promise<TurnRecord> => {
        run.turnsThisRun++;
        const turnId = currentUpdateInfo()!.id;
        const recorded = await recordTurn({ sessionId, updateId: turnId, ...turn });
        run.leases.end(turnId);
        run.turnCount = Math.max(run.turnCount, recorded.index);
        setCurrentDetails(`Turn ${recorded.index}: “${turn.text}” → “${turn.spokenText}”`);
        return recorded;
      }),
    {
      validator: (turn) => {
        refuseUnlessOpen(run, currentUpdateInfo()!.id);
        if (typeof turn?.text !== 'string' || turn.text.trim() === '') throw new Error('text is required');
      },
    },
  );
  setHandler(endUpdate, async () => {
    if (run.status === 'active') await finish('ended');
    await condition(() => run.status === 'ended');
    return run.ended!;
  });
}

/**
 * The session's idle timer, one per idle period, not one per turn: a timer that fires after a turn
 * waits out the rest of the period, and one that fires while a turn is under way waits for it. Ends
 * the session as `idle_timeout`, or continues it as new every `turnsPerRun` turns.
 */
async function untilSessionEnds(
  run: SessionRun,
  finish: (reason: 'idle_timeout') => Promise<void>,
): Promise<void> {
  const { input } = run;
  const active = () => run.status === 'active';
  const dueToContinueAsNew = () =>
    run.turnsThisRun >= input.turnsPerRun || workflowInfo().continueAsNewSuggested;
  while (active()) {
    const rest = run.idleSince + input.idleTimeoutMs - Date.now();
    const woke = rest > 0 && (await condition(() => !active() || (!held(run) && dueToContinueAsNew()), rest));
    if (!active()) break;
    if (woke) {
      await condition(allHandlersFinished);
      if (active() && !held(run)) {
        await continueAsNew<typeof voiceSessionWorkflow>({ ...input, turnCount: run.turnCount });
      }
    } else if (run.busy) {
      await condition(() => !run.busy || !active());
    } else if (run.leases.any()) {
      await waitOnTurnLeases(run, active);
    } else if (Date.now() - run.idleSince >= input.idleTimeoutMs) {
      await finish('idle_timeout');
    }
  }
}

/**
 * A conversation finishes on the code it started on (docs/operations.md "Deploys"): with Worker
 * Deployments its runs are pinned to their version, so a deploy never changes a live call's code
 * and a change to this workflow needs no `patched()`. (An unversioned worker may declare no
 * behavior: Temporal refuses the task.)
 */
setWorkflowOptions(pinnedWhenVersioned, voiceSessionWorkflow);
