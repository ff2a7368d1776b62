import type { CommandRun } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { derivedId } from '../../common/ids';
import { voiceTurnDuration } from '../../telemetry/metrics';
import { inSpan } from '../../telemetry/tracing';
import {
  type FinishedExecution,
  finishedExecution,
  interpretGraph,
  matchCommand,
  recordExecutionStart,
  type StepRecord,
  type VoiceCommandWorkflow,
  WorkflowExecution,
  workflowInputOf,
} from '../../voice-workflows';
import { buildAgentContext, type ChatMessage, ownerOf } from '../agent-context';
import { callerOf } from '../agent-tools';
import type { TurnAction } from '../session.entity';
import {
  commandDoneReply,
  commandFailedError,
  commandFailedReply,
  commandsMenuReply,
  FALLBACK_REPLY,
  LLM_ROUNDS,
  outOfScopeTopic,
  refusalReply,
  TOOLS_AFTER_LAST_ROUND,
} from '../turn-rules';
import { followCommand } from './command-progress';
import { askModel } from './model-client';
import type { TurnAnswer, TurnRequest } from './turn-listener';
import { loadTurnSession, type TurnSession } from './turn-session';
import { runCommandInWorkflow } from './turn-store';
import { runToolRound } from './turn-tools';

/**
 * How the agent answers a turn (docs/sessions.md "How the agent answers"), in order:
 * 1. an out-of-scope topic of the persona → a polite refusal (no model, no tool);
 * 2. a `voice_command` workflow whose command matches → it runs (here when it has no side effect,
 *    recorded with the turn; else step by step in the session's workflow) and its `speak` steps are
 *    the reply;
 * 3. an LLM configured → the model, streamed, and its tool rounds (the tools run in the workflow);
 * 4. else a reply naming the voice commands the agent knows.
 * The answer is not recorded here: the transport records it once it knows what was spoken.
 */
export function answerTurn(
  ctx: AppContext,
  turn: TurnRequest,
  /** The session, when the transport loaded it with its claim (a REST turn). */
  session?: TurnSession,
): Promise<TurnAnswer> {
  // the turn's span is the parent of its model call and of its tool rounds in the session's workflow
  const ids = { 'voice.session_id': turn.sessionId, 'voice.turn_id': turn.turnId };
  return inSpan('voice.turn', ids, async (span) => {
    const answered = await decideAnswer(ctx, turn, session);
    span.setAttribute('voice.turn_route', answered.route);
    voiceTurnDuration.observe({ route: answered.route }, answered.latencyMs / 1000);
    return answered;
  });
}

async function decideAnswer(ctx: AppContext, turn: TurnRequest, session?: TurnSession): Promise<TurnAnswer> {
  const loaded = session ?? (await loadTurnSession(ctx, turn.sessionId));
  const topic = outOfScopeTopic(turn.text, loaded.manifest.knowledge?.out_of_scope_topics);
  if (topic) return say(turn, 'refusal', refusalReply(topic));
  const match = matchCommand(turn.text, loaded.commands);
  if (match.kind === 'match') return answerWithCommand(ctx, turn, loaded, match.best);
  if (ctx.config.llm.baseUrl) {
    // the model may take a while: the session's idle timer must not end the session under the turn
    turn.hold?.begin();
    return answerWithModel(ctx, turn, loaded);
  }
  return say(turn, 'fallback', commandsMenuReply(loaded.commands.map((c) => c.command)));
}

/** A reply decided at once, without a model or a tool. */
function say(turn: TurnRequest, route: 'refusal' | 'fallback', reply: string): TurnAnswer {
  turn.listener.text(reply);
  return answer(turn, { route, reply, actions: [], error: null });
}

function answer(
  turn: TurnRequest,
  a: Pick<TurnAnswer, 'route' | 'actions' | 'error'> & { reply: string; interrupted?: boolean },
): TurnAnswer {
  return {
    text: turn.text,
    reply: { text: a.reply },
    route: a.route,
    actions: a.actions,
    error: a.error,
    latencyMs: Math.max(0, Date.now() - turn.startedAt),
    interrupted: a.interrupted ?? turn.signal.aborted,
  };
}

/** Nodes the interpreter computes itself; a graph of only these has no side effect to wait for. */
const PURE_NODE_TYPES: ReadonlySet<string> = new Set(['start', 'speak', 'condition', 'end']);

/**
 * A matched voice command. Its execution's id is derived from the session and the turn. A graph
 * without side effects (speak, condition) is interpreted here, and the statement that records the
 * turn records it finished, with its events; any other runs in the session's workflow, step by step.
 */
async function answerWithCommand(
  ctx: AppContext,
  turn: TurnRequest,
  { em, session }: TurnSession,
  best: { item: VoiceCommandWorkflow; command: string; score: number },
): Promise<TurnAnswer> {
  const workflow = best.item;
  const execution = em.create(
    WorkflowExecution,
    {
      id: derivedId('exec', turn.sessionId, turn.turnId),
      account: session.account,
      environment: session.environment,
      workflowId: workflow.id,
      version: workflow.version,
      definition: { nodes: workflow.nodes, edges: workflow.edges },
      input: { utterance: turn.text, sessionId: session.id, userId: session.userId },
      sessionId: session.id,
      match: { utterance: turn.text, command: best.command, score: best.score },
      // run here or by the session's workflow: the dispatcher must not start it too
      workflowStartedAt: new Date(),
    },
    { persist: false },
  );
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
  const run = await runCommand(ctx, turn, execution, em, stepOf);
  const failed = run.status !== 'completed';
  const ending = failed
    ? commandFailedReply(workflow.name)
    : said.length
      ? ''
      : commandDoneReply(workflow.name, []);
  if (ending) turn.listener.text(ending);
  const reply = [...said, ending].filter(Boolean).join(' ');
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
  };
  const error = failed ? commandFailedError(workflow.name, run.failure ?? 'unknown failure') : null;
  return { ...answer(turn, { route: 'workflow', reply, actions: [action], error }), command: run.record };
}

/**
 * Runs the command: here when its graph has no side effect, else in the session's workflow, whose
 * progress is followed meanwhile so that each step is heard as it settles (`onStep`, once each).
 */
async function runCommand(
  ctx: AppContext,
  turn: TurnRequest,
  execution: WorkflowExecution,
  em: TurnSession['em'],
  onStep: (step: StepRecord) => void,
): Promise<CommandRun & { record?: FinishedExecution }> {
  if (execution.definition.nodes.every((n) => PURE_NODE_TYPES.has(n.type))) {
    const run = await runPureCommand(execution);
    run.steps.forEach(onStep);
    return run;
  }
  recordExecutionStart(em, execution);
  await em.flush();
  const progress = followCommand(ctx, execution.id, onStep);
  let run: CommandRun | undefined;
  try {
    run = await runCommandInWorkflow(ctx, turn.sessionId, {
      turnId: turn.turnId,
      plan: workflowInputOf(execution),
    });
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
): Promise<CommandRun & { record: FinishedExecution }> {
  const trace = await interpretGraph(execution.definition, execution.input, {
    now: () => Date.now(),
    callTool: () => Promise.reject(new Error('not a pure graph')),
    prompt: () => Promise.reject(new Error('not a pure graph')),
  });
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

/**
 * The model, streamed, with every tool of the account as a function: each round's text goes out as it
 * arrives; tool calls run in the session's workflow and their results go back to the model, at most
 * LLM_ROUNDS completions a turn. The reply is the text of every round. A failure is spoken as the
 * fallback with its error; an interruption stops the model and keeps what was said.
 */
async function answerWithModel(ctx: AppContext, turn: TurnRequest, loaded: TurnSession): Promise<TurnAnswer> {
  const { em, session, manifest } = loaded;
  const context = await buildAgentContext(ctx, em, session, manifest);
  const messages: ChatMessage[] = [
    { role: 'system', content: context.system },
    ...context.history,
    { role: 'user', content: turn.text },
  ];
  const said: string[] = [];
  const actions: TurnAction[] = [];
  const reply = () => said.join(' ').trim();
  for (let round = 1; ; round++) {
    const model = await askModel(ctx, {
      messages,
      tools: context.tools,
      model: context.conversation.model,
      signal: turn.signal,
      onText: (text) => turn.listener.text(text),
    });
    if (model.content?.trim()) said.push(model.content.trim());
    if (!model.ok) {
      if (model.interrupted) return answer(turn, { route: 'llm', reply: reply(), actions, error: null });
      if (!reply()) turn.listener.text(FALLBACK_REPLY);
      return answer(turn, { route: 'llm', reply: reply() || FALLBACK_REPLY, actions, error: model.error });
    }
    const last = round === LLM_ROUNDS || turn.signal.aborted;
    if (model.toolCalls.length === 0 || last) {
      const error = model.toolCalls.length > 0 && !turn.signal.aborted ? TOOLS_AFTER_LAST_ROUND : null;
      if (!reply()) turn.listener.text(FALLBACK_REPLY);
      return answer(turn, { route: 'llm', reply: reply() || FALLBACK_REPLY, actions, error });
    }
    const outcomes = await runToolRound(
      ctx,
      { ...turn },
      {
        round,
        calls: model.toolCalls,
        tools: context.tools,
        owner: ownerOf(session),
        caller: callerOf(session),
        mocks: loaded.toolMocks,
        thinkingSounds: manifest.behaviors?.thinking_sounds,
      },
    );
    messages.push({ role: 'assistant', content: model.content, tool_calls: model.toolCalls });
    outcomes.forEach((o, i) => {
      actions.push(o.action);
      messages.push({ role: 'tool', tool_call_id: model.toolCalls[i].id, content: o.content });
    });
  }
}
