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
import type { TurnAction } from '../src/sessions/session.entity';
import {
  commandDoneReply,
  commandFailedError,
  commandFailedReply,
  FALLBACK_REPLY,
  unfinishedTurnError,
} from '../src/sessions/turn-rules';
import type { TurnRecord } from '../src/sessions/turn-types';
import type { RunVoiceWorkflowInput } from '../src/voice-workflows/execution-types';
import { endUpdate, type SessionEnd, sessionStateQuery, turnUpdate } from './messages';
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
 * A whole turn: the decision, the model and its tool rounds, and the record. Each retry resumes from
 * what was recorded; one that keeps failing (the worker or the database: the model's and the tools'
 * failures are answers) is recorded as the spoken fallback.
 */
const { answerTurn } = proxyLocalActivities<Activities>({
  // up to 3 model calls (30 s each) and the tool calls between them, each within its own timeout
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    // about 25 s of retries (a database failover), well within the 60 s the API waits for the turn
    maximumAttempts: 10,
  },
});

/** The turn in flight: identified by its Workflow Update, whatever index its record then takes. */
interface TurnRef {
  sessionId: string;
  updateId: string;
  text: string;
  started: number;
}

/** Records the spoken fallback for a turn whose step kept failing, with the failure as its error. */
function recordUnfinished(turn: TurnRef, failure: unknown): Promise<TurnRecord> {
  const cause = ((failure as Error).cause as Error | undefined) ?? (failure as Error);
  return recordTurn({
    sessionId: turn.sessionId,
    updateId: turn.updateId,
    text: turn.text,
    reply: { text: FALLBACK_REPLY },
    route: 'fallback',
    actions: [],
    error: unfinishedTurnError(cause?.message),
    latencyMs: Date.now() - turn.started,
  });
}

/** A voice command with side effects, run here step by step (its steps are this workflow's local activities). */
async function runVoiceCommand(
  turn: TurnRef,
  plan: { input: RunVoiceWorkflowInput; workflowName: string },
): Promise<TurnRecord> {
  const t0 = Date.now();
  let status = 'completed';
  let reply: string;
  let error: string | null = null;
  try {
    const run = await executeVoiceGraph(plan.input, { showDetails: false });
    if (run.trace.error) throw new Error(`Node ${run.trace.error.nodeId} failed: ${run.trace.error.message}`);
    const speech = (run.view?.output as { speech?: string[] } | null)?.speech ?? [];
    reply = commandDoneReply(plan.workflowName, speech);
  } catch (failure) {
    status = 'failed';
    const cause = ((failure as Error).cause as Error | undefined) ?? (failure as Error);
    error = commandFailedError(plan.workflowName, cause?.message ?? (failure as Error).message);
    reply = commandFailedReply(plan.workflowName);
  }
  const action: TurnAction = {
    type: 'workflow',
    workflowId: plan.input.workflowId,
    workflowName: plan.workflowName,
    executionId: plan.input.executionId,
    status,
    durationMs: Date.now() - t0,
  };
  return recordTurn({
    sessionId: turn.sessionId,
    updateId: turn.updateId,
    text: turn.text,
    reply: { text: reply },
    route: 'workflow',
    actions: [action],
    error,
    latencyMs: Date.now() - turn.started,
  });
}

/**
 * One turn (docs/sessions.md "How the agent answers"): the step decides and answers it, recording it
 * (everything but a voice command with side effects, which runs here); a step that keeps failing is
 * recorded as the spoken fallback.
 */
async function takeTurn(turn: TurnRef, answerEarly: boolean): Promise<TurnRecord> {
  try {
    const plan = await answerTurn({
      sessionId: turn.sessionId,
      updateId: turn.updateId,
      text: turn.text,
      startedAt: turn.started,
      answerEarly,
    });
    if (plan.kind === 'recorded') return plan.turn;
    return await runVoiceCommand(turn, plan);
  } catch (failure) {
    // the step kept failing (not an answer: the worker or the database): the fallback is spoken
    return recordUnfinished(turn, failure);
  }
}

/**
 * One voice session (workflow id = the `sess_…` id). Each turn is a Workflow Update, so the Web UI
 * shows the conversation turn by turn (the update's input is what the caller said, its result the
 * agent's reply and actions); turns are taken one at a time, in order, each identified by its update.
 * With no turn for `idleTimeoutMs` (one durable timer per idle period) the session ends as
 * `idle_timeout`; the `end` update ends it at once. Every `turnsPerRun` turns the workflow continues
 * as new, so a long conversation's history stays bounded.
 */
export async function voiceSessionWorkflow(input: VoiceSessionInput): Promise<SessionEnd> {
  const state = { turnCount: input.turnCount ?? 0, turnsThisRun: 0, busy: false, idleSince: Date.now() };
  let status: 'active' | 'ending' | 'ended' = 'active';
  let ended: SessionEnd | undefined;
  const dueToContinueAsNew = () =>
    state.turnsThisRun >= input.turnsPerRun || workflowInfo().continueAsNewSuggested;

  setHandler(sessionStateQuery, () => ({ status, turnCount: state.turnCount }));
  setHandler(
    turnUpdate,
    async ({ text }) => {
      await condition(() => !state.busy);
      state.busy = true;
      try {
        state.turnsThisRun++;
        setCurrentDetails(`Turn: “${text}”`);
        const ref = {
          sessionId: input.sessionId,
          updateId: currentUpdateInfo()!.id,
          text,
          started: Date.now(),
        };
        // the turn after which this run continues as new is answered by its update: answered early,
        // the caller's next turn could reach this run while it closes, and wait for the client's retry
        const turn = await takeTurn(ref, !dueToContinueAsNew());
        state.turnCount = Math.max(state.turnCount, turn.index);
        setCurrentDetails(`Turn ${turn.index}: “${text}” → “${turn.reply.text}”`);
        return turn;
      } finally {
        state.busy = false;
        state.idleSince = Date.now();
      }
    },
    {
      validator: ({ text }) => {
        if (status !== 'active') throw new Error('The session has ended');
        if (typeof text !== 'string' || text.trim() === '') throw new Error('text is required');
      },
    },
  );
  const finish = async (reason: 'ended' | 'idle_timeout') => {
    status = 'ending';
    await condition(() => !state.busy);
    ended = await endSession({ sessionId: input.sessionId, reason });
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
