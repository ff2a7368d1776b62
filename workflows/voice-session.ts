import {
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  defineQuery,
  defineUpdate,
  executeChild,
  ParentClosePolicy,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChatMessage } from '../src/sessions/agent-context';
import type { ToolRound, TurnPlan, TurnRecord, TurnStep } from '../src/sessions/agent-turn';
import type { TurnAction } from '../src/sessions/session.entity';
import type { ExecutionView } from '../src/voice-workflows/execution-types';
import type { runVoiceWorkflow } from './run-voice-workflow';
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

export interface SessionEnd {
  endedAt: string;
  turnCount: number;
  durationMs: number;
}

/** One turn: what the caller said. Answers the turn once the agent has replied (README "Voice sessions"). */
export const turnUpdate = defineUpdate<TurnRecord, [{ text: string }]>('turn');
/** Ends the session (`session.ended`); ending an ended session answers its end again. */
export const endUpdate = defineUpdate<SessionEnd, []>('end');
export const sessionStateQuery = defineQuery<{ status: string; turnCount: number }>('state');

/** Planning (with the first model call), recording and ending, retried until the database answers. */
const { planTurn, recordTurn, endSession } = proxyLocalActivities<Activities>({
  // the model call's own timeout (30 s) is within it
  startToCloseTimeout: '45 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});
/** The model: one attempt (its failures are answers, spoken as a fallback). */
const { chatCompletion } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '40 seconds',
  retry: { maximumAttempts: 2 },
});
/** A tool call: its failures are answers too; retried only when the worker itself failed. */
const { runAgentTool } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '45 seconds',
  retry: { maximumAttempts: 2 },
});
/**
 * A whole turn (since TURN_IN_ONE_STEP): planning, the model and its tool rounds, and the record. Each
 * retry resumes from what was recorded; one that keeps failing (the worker or the database: the
 * model's and the tools' failures are answers) is recorded as the spoken fallback.
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
/**
 * A round: its tool calls (each within its own timeout), then the model's next answer (30 s), and
 * the turn recorded if that answer is final. Retried when the worker itself failed.
 */
const { continueTurn } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 5,
  },
});

/**
 * Since this patch a session's voice command runs inside the session's workflow (its steps are the
 * session's local activities); histories from before it started a child runVoiceWorkflow.
 */
const INLINE_VOICE_COMMANDS = 'voice-command-inline';

/**
 * Since this patch a turn is one local activity (answerTurn) however many tool rounds the model
 * makes; histories from before it planned (planTurn) and then ran each round as a step of its own
 * (continueTurn).
 */
const TURN_IN_ONE_STEP = 'turn-in-one-step';

/** At most this many chat completions per turn (tool results go back to the model in between). */
const LLM_ROUNDS = 3;
const FALLBACK_REPLY = "Sorry, I'm having trouble answering right now. Could you say that again in a moment?";

/** Records the spoken fallback for a turn whose step kept failing, with the failure as its error. */
function recordUnfinished(
  turn: { sessionId: string; index: number; text: string; started: number },
  failure: unknown,
  route: 'fallback' | 'llm',
  actions: TurnAction[],
): Promise<TurnRecord> {
  const cause = ((failure as Error).cause as Error | undefined) ?? (failure as Error);
  return recordTurn({
    sessionId: turn.sessionId,
    index: turn.index,
    text: turn.text,
    reply: { text: FALLBACK_REPLY },
    route,
    actions,
    error: `The turn could not finish: ${cause?.message ?? 'unknown error'}`,
    latencyMs: Date.now() - turn.started,
  });
}

async function takeTurn(
  sessionId: string,
  index: number,
  text: string,
  opts: { answerEarly: boolean },
): Promise<TurnRecord> {
  const started = Date.now();
  let plan: TurnPlan;
  if (patched(TURN_IN_ONE_STEP)) {
    try {
      // the update's id lets the step hand the recorded turn to an API request of its own process
      // (src/sessions/turn-answers.ts); a step's input is not part of the history's replay
      const updateId = opts.answerEarly ? currentUpdateInfo()?.id : undefined;
      plan = await answerTurn({ sessionId, index, text, startedAt: started, updateId });
    } catch (failure) {
      // the step kept failing (not an answer: the worker or the database): the fallback is spoken
      return recordUnfinished({ sessionId, index, text, started }, failure, 'fallback', []);
    }
  } else {
    plan = await planTurn({ sessionId, index, text, startedAt: started });
  }
  // answered while planning (a refusal, a fallback, a command without side effects, the model's
  // answer without a tool call): recorded there, the turn is done
  if (plan.kind === 'recorded') return plan.turn;
  if (plan.kind === 'tools') {
    // each round (its tool calls, then the model's next answer) is one step; the final one records
    let step: ToolRound = plan.step;
    for (;;) {
      let next: TurnStep;
      try {
        next = await continueTurn({
          sessionId,
          index,
          text,
          startedAt: started,
          step,
          tools: plan.tools,
          owner: plan.owner,
          caller: plan.caller,
        });
      } catch (failure) {
        // the round kept failing (not an answer: the worker or the database): the fallback is spoken
        return recordUnfinished({ sessionId, index, text, started }, failure, 'llm', step.actions);
      }
      if (next.kind === 'recorded') return next.turn;
      step = next.step;
    }
  }
  const actions: TurnAction[] = [];
  let reply = FALLBACK_REPLY;
  let error: string | null = null;

  if (plan.kind === 'reply') {
    reply = plan.reply;
  } else if (plan.kind === 'workflow') {
    const t0 = Date.now();
    let status = 'completed';
    try {
      let view: ExecutionView | null;
      if (patched(INLINE_VOICE_COMMANDS)) {
        // in this workflow: the same interpreter and records, without a child's round trips
        const run = await executeVoiceGraph(plan.input, { showDetails: false });
        if (run.trace.error) {
          throw new Error(`Node ${run.trace.error.nodeId} failed: ${run.trace.error.message}`);
        }
        view = run.view;
      } else {
        view = await executeChild<typeof runVoiceWorkflow>('runVoiceWorkflow', {
          workflowId: plan.input.executionId,
          args: [plan.input],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        });
      }
      const speech = (view?.output as { speech?: string[] } | null)?.speech ?? [];
      reply = speech.join(' ') || `Done: ${plan.workflowName}.`;
    } catch (failure) {
      status = 'failed';
      const cause = ((failure as Error).cause as Error | undefined) ?? (failure as Error);
      error = `Workflow ${plan.workflowName} failed: ${cause?.message ?? (failure as Error).message}`;
      reply = `Sorry, I couldn't finish "${plan.workflowName}" this time.`;
    }
    actions.push({
      type: 'workflow',
      workflowId: plan.input.workflowId,
      workflowName: plan.workflowName,
      executionId: plan.input.executionId,
      status,
      durationMs: Date.now() - t0,
    });
  } else {
    const messages: ChatMessage[] = [...plan.messages];
    for (let round = 1; round <= LLM_ROUNDS; round++) {
      const answer = await chatCompletion({ messages, tools: plan.tools });
      if (!answer.ok) {
        error = answer.error;
        reply = FALLBACK_REPLY;
        break;
      }
      if (answer.toolCalls.length === 0 || round === LLM_ROUNDS) {
        reply = answer.content?.trim() || FALLBACK_REPLY;
        if (answer.toolCalls.length > 0) error = `The model still wanted tools after ${LLM_ROUNDS} rounds`;
        break;
      }
      messages.push({ role: 'assistant', content: answer.content, tool_calls: answer.toolCalls });
      for (const call of answer.toolCalls) {
        const ran = await runAgentTool({
          sessionId,
          call,
          tools: plan.tools,
          owner: plan.owner,
          caller: plan.caller,
        });
        actions.push(ran.action);
        messages.push({ role: 'tool', tool_call_id: call.id, content: ran.content });
      }
    }
  }
  const route = plan.kind === 'reply' ? plan.route : plan.kind;
  return recordTurn({
    sessionId,
    index,
    text,
    reply: { text: reply },
    route,
    actions,
    error,
    latencyMs: Date.now() - started,
  });
}

/**
 * One voice session (workflow id = the `sess_…` id). Each turn is a Workflow Update, so the Web UI
 * shows the conversation turn by turn (the update's input is what the caller said, its result the
 * agent's reply and actions); turns are taken one at a time, in order. With no turn for
 * `idleTimeoutMs` (a durable timer) the session ends as `idle_timeout`; the `end` update ends it at
 * once. Every `turnsPerRun` turns the workflow continues as new, so a long conversation's history
 * stays bounded.
 */
/** A session's idle timer runs once per idle period (it was cancelled and started again every turn). */
const IDLE_TIMER_PER_PERIOD = 'session-idle-timer-per-period';

export async function voiceSessionWorkflow(input: VoiceSessionInput): Promise<SessionEnd> {
  let turnCount = input.turnCount ?? 0;
  let turnsThisRun = 0;
  let status: 'active' | 'ending' | 'ended' = 'active';
  let busy = false;
  let ended: SessionEnd | undefined;
  /** When the last turn ended (workflow time), or the run began: what the idle timeout counts from. */
  let idleSince = Date.now();

  const dueToContinueAsNew = () => turnsThisRun >= input.turnsPerRun || workflowInfo().continueAsNewSuggested;

  setHandler(sessionStateQuery, () => ({ status, turnCount }));
  setHandler(
    turnUpdate,
    async ({ text }) => {
      await condition(() => !busy);
      busy = true;
      try {
        const index = ++turnCount;
        turnsThisRun++;
        setCurrentDetails(`Turn ${index}: “${text}”`);
        // the turn after which this run continues as new is answered by its update: answered
        // early, the caller's next turn could reach this run while it closes, and wait for the
        // client's retry (a second or two) to find the next run
        const turn = await takeTurn(input.sessionId, index, text, { answerEarly: !dueToContinueAsNew() });
        setCurrentDetails(`Turn ${index}: “${text}” → “${turn.reply.text}”`);
        return turn;
      } finally {
        busy = false;
        idleSince = Date.now();
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
    await condition(() => !busy);
    ended = await endSession({ sessionId: input.sessionId, reason });
    status = 'ended';
    setCurrentDetails(`Ended (${reason}) after ${ended.turnCount} turns`);
  };
  setHandler(endUpdate, async () => {
    if (status === 'active') await finish('ended');
    await condition(() => status === 'ended');
    return ended!;
  });

  const continueAsNewOnceIdle = async () => {
    await condition(allHandlersFinished);
    if (status === 'active' && !busy) {
      await continueAsNew<typeof voiceSessionWorkflow>({ ...input, turnCount });
    }
  };

  setCurrentDetails('Waiting for the first turn');
  if (patched(IDLE_TIMER_PER_PERIOD)) {
    // one timer per idle period, not one per turn: a timer that fires after a turn waits out the rest
    while (status === 'active') {
      const rest = idleSince + input.idleTimeoutMs - Date.now();
      const woke =
        rest > 0 && (await condition(() => status !== 'active' || (!busy && dueToContinueAsNew()), rest));
      if (status !== 'active') break;
      if (!woke) {
        if (busy) await condition(() => !busy || status !== 'active');
        else if (Date.now() - idleSince >= input.idleTimeoutMs) {
          await finish('idle_timeout');
          break;
        }
        continue;
      }
      await continueAsNewOnceIdle();
    }
  } else {
    // histories from before IDLE_TIMER_PER_PERIOD: the idle timer restarted after every turn
    while (status === 'active') {
      const seen = turnCount;
      const woke = await condition(() => status !== 'active' || turnCount !== seen, input.idleTimeoutMs);
      if (!woke && !busy) {
        await finish('idle_timeout');
        break;
      }
      await condition(() => !busy || status !== 'active');
      if (status === 'active' && dueToContinueAsNew()) await continueAsNewOnceIdle();
    }
  }
  await condition(() => status === 'ended');
  await condition(allHandlersFinished);
  return ended!;
}
