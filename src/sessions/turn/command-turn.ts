import type { CommandRun } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { derivedId } from '../../common/ids';
import {
  type FinishedExecution,
  finishedExecution,
  interpretGraph,
  type ParameterValue,
  type RunVoiceWorkflowInput,
  recordExecutionStart,
  type StepRecord,
  type VoiceCommandWorkflow,
  WorkflowExecution,
  workflowInputOf,
} from '../../voice-workflows';
import { CALL_NODE_TYPES, type CallNodeType, type RunOnCall } from '../../voice-workflows/call-nodes';
import { keypadDigits } from '../keypad-input';
import type { TurnAction } from '../session.entity';
import {
  commandDoneReply,
  commandFailedContext,
  commandFailedError,
  commandFailedReply,
} from '../turn-rules';
import { callActionsOf, performCallActions } from './command-call-actions';
import { followCommand } from './command-progress';
import { answerWithModel } from './model-turn';
import { answer } from './turn-answer';
import type { TurnAnswer, TurnRequest } from './turn-listener';
import type { TurnSession } from './turn-session';
import { runCommandInWorkflow } from './turn-store';

/**
 * Nodes the interpreter computes itself; a graph of only these has no side effect to wait for (a
 * call node only asks: the turn performs its action on the call once the run is over).
 */
const PURE_NODE_TYPES: ReadonlySet<string> = new Set([
  'start',
  'speak',
  'condition',
  'end',
  ...CALL_NODE_TYPES,
]);

/** A command to run: the workflow, how the caller's words matched it, and its parameters' values. */
export interface CommandToRun {
  item: VoiceCommandWorkflow;
  command: string;
  score: number;
  /** What the caller said that matched the command. */
  utterance: string;
  /** Null for a command without parameters (the run's input has no `trigger` then). */
  parameters: Record<string, ParameterValue> | null;
}

/**
 * What the run reads as `trigger.<name>`: the command's parameters, and the keys of a keypad entry
 * (`trigger.digits`, docs/telephony.md "Keypad input").
 */
function triggerOf(parameters: CommandToRun['parameters'], digits: string | undefined) {
  if (!parameters && digits === undefined) return {};
  return { trigger: { ...(parameters ?? {}), ...(digits !== undefined ? { digits } : {}) } };
}

/** The command's execution, not persisted: its id derived from the session and the turn. */
function commandExecution(turn: TurnRequest, { em, session }: TurnSession, best: CommandToRun) {
  const workflow = best.item;
  return em.create(
    WorkflowExecution,
    {
      id: derivedId('exec', turn.sessionId, turn.turnId),
      account: session.account,
      environment: session.environment,
      workflowId: workflow.id,
      version: workflow.version,
      definition: { nodes: workflow.nodes, edges: workflow.edges },
      input: {
        utterance: best.utterance,
        sessionId: session.id,
        userId: session.userId,
        ...triggerOf(best.parameters, keypadDigits(turn.text)),
      },
      sessionId: session.id,
      match: { utterance: best.utterance, command: best.command, score: best.score },
      // run here or by the session's workflow: the dispatcher must not start it too
      workflowStartedAt: new Date(),
    },
    { persist: false },
  );
}

/**
 * A matched voice command. Its execution's id is derived from the session and the turn. A graph
 * without side effects (speak, condition) is interpreted here, and the statement that records the
 * turn records it finished, with its events; any other runs in the session's workflow, step by step.
 * Once it has run and its speech was said, the call actions its call nodes asked for are performed
 * on the turn's call (src/sessions/turn/command-call-actions.ts). A run that fails, or whose call
 * action was refused, hands the turn to the model, told which command failed and why (with a model
 * configured; else the agent says it could not finish).
 */
export async function answerWithCommand(
  ctx: AppContext,
  turn: TurnRequest,
  loaded: TurnSession,
  best: CommandToRun,
): Promise<TurnAnswer> {
  const { em } = loaded;
  const workflow = best.item;
  const execution = commandExecution(turn, loaded, best);
  const said: string[] = [];
  const stepOf = (step: StepRecord) => {
    const speech = step.type === 'speak' && step.status === 'completed' ? [String(step.result)] : [];
    // a `speak` step is heard as soon as it has run (the reply is what they said); the space after it
    // tells the speech that its sentence is over
    for (const text of speech) {
      said.push(text);
      turn.listener.text(`${text} `);
    }
    const { nodeId, type: nodeType, status } = step;
    turn.listener.workflowStep({
      workflowName: workflow.name,
      executionId: execution.id,
      nodeId,
      nodeType,
      status,
      speech,
    });
  };
  const run = await runCommand(ctx, turn, execution, em, {
    onStep: stepOf,
    callActions: callActionsOf(turn.call),
  });
  turn.listener.workflowStep({
    workflowName: workflow.name,
    executionId: execution.id,
    nodeId: null,
    nodeType: null,
    status: run.status,
    speech: run.speech,
  });
  const action: TurnAction = {
    type: 'workflow',
    workflowId: workflow.id,
    workflowName: workflow.name,
    executionId: execution.id,
    status: run.status,
    durationMs: run.durationMs,
    ...(best.parameters ? { parameters: best.parameters } : {}),
  };
  if (run.status !== 'completed')
    return commandFailed(ctx, turn, loaded, { best, run, actions: [action], said });
  const acted = await performCallActions(turn, run.steps);
  said.push(...acted.said);
  const actions = [action, ...acted.actions];
  if (acted.refused)
    return commandFailed(ctx, turn, loaded, { best, run: { ...run, failure: acted.refused }, actions, said });
  // a call action is an answer of its own (the tones, the hang-up with its closing line, the transfer)
  const ending = said.length || acted.actions.length ? '' : commandDoneReply(workflow.name, []);
  if (ending) turn.listener.text(ending);
  const reply = [...said, ending].filter(Boolean).join(' ');
  return {
    ...answer(turn, { route: 'workflow', reply, actions, error: null }),
    command: run.record,
  };
}

/**
 * A command that failed: with a model, the turn goes on with it, told which command failed and why,
 * and its reply is what the caller hears; without one, the agent says it could not finish. Either
 * way the turn's error says where and why it failed.
 */
async function commandFailed(
  ctx: AppContext,
  turn: TurnRequest,
  loaded: TurnSession,
  failed: { best: CommandToRun; run: RunOutcome; actions: TurnAction[]; said: string[] },
): Promise<TurnAnswer> {
  const { best, run, actions, said } = failed;
  const name = best.item.name;
  const failure = run.failure ?? 'unknown failure';
  const error = commandFailedError(name, failure);
  if (ctx.config.llm.baseUrl && !turn.signal.aborted) {
    turn.hold?.begin();
    const context = [{ role: 'system' as const, content: commandFailedContext(name, best.command, failure) }];
    const handoff = { context, said, actions, fallback: commandFailedReply(name) };
    const answered = await answerWithModel(ctx, turn, loaded, handoff);
    return { ...answered, route: 'workflow', error: answered.error ?? error, command: run.record };
  }
  const ending = commandFailedReply(name);
  turn.listener.text(ending);
  const reply = [...said, ending].join(' ');
  return { ...answer(turn, { route: 'workflow', reply, actions, error }), command: run.record };
}

type RunOutcome = CommandRun & { record?: FinishedExecution };

/**
 * Runs the command: here when its graph has no side effect, else in the session's workflow, whose
 * progress is followed meanwhile so that each step is heard as it settles (`onStep`, once each).
 * Either way its call nodes may ask only the `callActions` the turn's call can take.
 */
async function runCommand(
  ctx: AppContext,
  turn: TurnRequest,
  execution: WorkflowExecution,
  em: TurnSession['em'],
  { onStep, callActions }: { onStep: (step: StepRecord) => void; callActions: CallNodeType[] },
): Promise<RunOutcome> {
  if (execution.definition.nodes.every((n) => PURE_NODE_TYPES.has(n.type))) {
    const run = await runPureCommand(execution, callActions);
    run.steps.forEach(onStep);
    return run;
  }
  recordExecutionStart(em, execution);
  await em.flush();
  const progress = followCommand(ctx, execution.id, onStep);
  let run: CommandRun | undefined;
  try {
    // the workflow's interpreter reads `callActions` (workflows/voice-graph.ts)
    const plan: RunVoiceWorkflowInput & RunOnCall = { ...workflowInputOf(execution), callActions };
    run = await runCommandInWorkflow(ctx, turn.sessionId, { turnId: turn.turnId, plan });
    return run;
  } finally {
    await progress.stop(run?.steps ?? []);
  }
}

/**
 * Interprets a graph without side effects. Nothing is written here: the finished execution goes with
 * the turn, and the statement that records the turn writes it with its events.
 */
async function runPureCommand(
  execution: WorkflowExecution,
  callActions: CallNodeType[],
): Promise<CommandRun & { record: FinishedExecution }> {
  const effects = {
    now: () => Date.now(),
    callTool: () => Promise.reject(new Error('not a pure graph')),
    prompt: () => Promise.reject(new Error('not a pure graph')),
  };
  const trace = await interpretGraph(execution.definition, execution.input, effects, { callActions });
  const record = finishedExecution(execution, trace);
  const failed = execution.status !== 'completed';
  return {
    status: failed ? 'failed' : 'completed',
    speech: execution.output?.speech ?? [],
    failure: failed ? `Node ${execution.error?.nodeId} failed: ${execution.error?.message}` : null,
    durationMs: execution.durationMs ?? 0,
    steps: trace.steps,
    record,
  };
}
