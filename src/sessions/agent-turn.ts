import type { CoreContext } from '../common/context';
import { derivedId } from '../common/ids';
import type { Owner } from '../common/owner';
import { preparedQuery } from '../db/prepared';
import { emitEvent } from '../events/emit';
import { ApiError } from '../http/errors';
import { executeInstalledTool, TIERS, type Tier } from '../marketplace';
import { postJson } from '../outbound/provider';
import { type PersonaManifest, personaManifestSql } from '../personas';
import { executeTool, prepareMcpCall, startToolWithEvents, Tool } from '../tools';
import {
  executionJsonSql,
  finishedExecutionCte,
  interpretGraph,
  matchCommand,
  type RunVoiceWorkflowInput,
  recordExecutionStart,
  type VoiceCommandWorkflow,
  voiceCommandsOf,
  voiceCommandWorkflowsJson,
  WorkflowExecution,
  workflowInputOf,
} from '../voice-workflows';
import {
  type AgentTool,
  buildAgentContext,
  type ChatMessage,
  type ChatToolCall,
  ownerOf,
  type SessionRef,
} from './agent-context';
import { Session, type SessionTurn, type TurnAction } from './session.entity';
import type { SessionEndReason, TurnRoute } from './statuses';
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
} from './turn-rules';
import type { TurnRecord } from './turn-types';

/**
 * What the turn's step answers the session's workflow (docs/sessions.md "How the agent answers"): the
 * turn, already recorded (a refusal, a fallback, a voice command without side effects, the model's
 * answer with its tool rounds), or a voice command with side effects for the workflow to run.
 */
export type TurnPlan =
  | { kind: 'recorded'; turn: TurnRecord }
  | { kind: 'workflow'; input: RunVoiceWorkflowInput; workflowName: string };

/** A round whose answer called tools: the conversation so far and the calls to run. */
interface ToolRound {
  /** 1 for the model's first answer. */
  round: number;
  messages: ChatMessage[];
  /** The assistant message that made the calls. */
  content: string | null;
  toolCalls: ChatToolCall[];
  /** The tool calls run in earlier rounds. */
  actions: TurnAction[];
}

/** What a round of tool calls and the model's next answer came to. */
type TurnStep = { kind: 'recorded'; turn: TurnRecord } | { kind: 'tools'; step: ToolRound };

/** What one chat completion answered: a failure is an answer too (spoken as a fallback). */
export type ChatAnswer =
  | { ok: true; content: string | null; toolCalls: ChatToolCall[] }
  | { ok: false; error: string };

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

const LLM_TIMEOUT_MS = 30_000;

/**
 * The session, its persona's manifest (empty if the persona was deleted) and the voice commands of
 * its account and environment, with what a step retried after a crash finds of the turn (identified
 * by its update): its voice command's run, the turn itself if it was recorded, and the last model
 * round kept for it. One query.
 */
async function loadSession(
  ctx: CoreContext,
  sessionId: string,
  turn: { executionId: string; updateId: string },
) {
  const em = ctx.orm.em.fork();
  const [row] = await preparedQuery<Record<string, unknown>>(
    em.getConnection().getKnex(),
    'session-load-turn',
    LOAD_SESSION_SQL,
  )([turn.executionId, turn.updateId, turn.updateId, sessionId]);
  if (!row) throw new Error(`Session ${sessionId} does not exist`);
  const {
    persona_manifest: manifest,
    voice_command_workflows: workflows,
    recorded_execution: execution,
    recorded_turn: recordedTurn,
    resumed_step: resumedStep,
    ...columns
  } = row;
  return {
    em,
    // read as is (no entity hydrated and merged: a turn only reads these)
    session: {
      id: columns.id,
      account: columns.account_id,
      environment: columns.environment,
      personaId: columns.persona_id,
      userId: columns.user_id,
      metadata: columns.metadata ?? {},
      status: columns.status,
    } as SessionRef,
    manifest: (manifest ?? {}) as PersonaManifest,
    commands: voiceCommandsOf(workflows as VoiceCommandWorkflow[]),
    recordedExecution: execution ? em.map(WorkflowExecution, execution as Record<string, unknown>) : null,
    recordedTurn: recordedTurn ? turnRecordOfRow(recordedTurn as TurnRow) : null,
    resumedStep: (resumedStep ?? null) as ToolRound | null,
  };
}

/**
 * loadSession's statement, prepared (planning was most of its time). The session's columns are named,
 * so a column added later cannot change a prepared statement's result type.
 */
const LOAD_SESSION_SQL = `select s.id, s.account_id, s.environment, s.persona_id, s.user_id, s.status, s.metadata, s.greeting,
          s.started_at, s.ended_at, s.end_reason, s.turn_count, s.workflow_started_at, s.created_at,
          s.updated_at, ${personaManifestSql('s.persona_id')} as persona_manifest,
          ${voiceCommandWorkflowsJson('s.account_id', 's.environment')} as voice_command_workflows,
          ${executionJsonSql} as recorded_execution,
          (select to_jsonb(t) from session_turns t where t.session_id = s.id and t.update_id = ?) as recorded_turn,
          (select r.step from session_turn_rounds r where r.session_id = s.id and r.update_id = ?
            order by r.round desc limit 1) as resumed_step
     from sessions s where s.id = ?`;

/** Nodes the interpreter computes itself; a graph of only these has no side effect to wait for. */
const PURE_NODE_TYPES: ReadonlySet<string> = new Set(['start', 'speak', 'condition', 'end']);
const isPureGraph = (graph: WorkflowExecution['definition']) =>
  graph.nodes.every((n) => PURE_NODE_TYPES.has(n.type));

/**
 * A voice command whose graph has no side effect (speak, condition): interpreted at once, the finished
 * execution (with `workflow.started`, step and final events) and the turn recorded in one
 * statement. Retried after a crash, it finds the execution recorded and answers from it. The reply
 * and the error read as those of a command the session's workflow runs (workflows/voice-session.ts).
 */
async function runPureCommand(
  ctx: CoreContext,
  execution: WorkflowExecution,
  isNew: boolean,
  turn: { sessionId: string; updateId: string; text: string; workflowName: string; started: number },
): Promise<TurnRecord> {
  let finished: { sql: string; bindings: unknown[] } | undefined;
  if (isNew) {
    const trace = await interpretGraph(execution.definition, execution.input, {
      now: () => Date.now(),
      callTool: () => Promise.reject(new Error('not a pure graph')),
      prompt: () => Promise.reject(new Error('not a pure graph')),
    });
    finished = finishedExecutionCte(execution, trace);
  }
  const failed = execution.status !== 'completed';
  const speech = execution.output?.speech ?? [];
  const record: TurnEntry = {
    sessionId: turn.sessionId,
    updateId: turn.updateId,
    text: turn.text,
    reply: {
      text: failed ? commandFailedReply(turn.workflowName) : commandDoneReply(turn.workflowName, speech),
    },
    route: 'workflow',
    actions: [
      {
        type: 'workflow',
        workflowId: execution.workflowId,
        workflowName: turn.workflowName,
        executionId: execution.id,
        status: failed ? 'failed' : 'completed',
        durationMs: execution.durationMs ?? 0,
      },
    ],
    error: failed
      ? commandFailedError(
          turn.workflowName,
          `Node ${execution.error?.nodeId} failed: ${execution.error?.message}`,
        )
      : null,
    latencyMs: Math.max(0, Date.now() - turn.started),
  };
  if (!finished) return recordTurn(ctx, record);
  // one statement: the finished execution with its events (if new), and the turn
  const rows = await preparedQuery<TurnRow>(
    ctx.orm.em.getConnection().getKnex(),
    'session-command-record',
    insertTurnSql(false, finished.sql),
  )([...finished.bindings, ...insertTurnValues(record, false)]);
  // another turn of the session took the next index at the same moment: the execution is committed,
  // so the turn is recorded on its own
  return rows[0] ? turnRecordOfRow(rows[0]) : recordTurn(ctx, record);
}

interface TurnInput {
  sessionId: string;
  /** The turn's Workflow Update: what identifies the turn (a retried step finds its record by it). */
  updateId: string;
  text: string;
  /** When the turn began (ms). */
  startedAt?: number;
}

/**
 * A voice turn in one step, recorded when it is answered. Decides how the agent answers, in order: an
 * out-of-scope topic → a polite refusal (no model, no tool); a `voice_command` workflow whose command
 * matches → run it (its execution id derived from the session and the turn's update, so a retried step
 * never makes a second one); an LLM configured → the model and its tool rounds; else a reply naming
 * the voice commands it knows. A voice command with side effects comes back as its plan (`workflow`),
 * for the session's workflow to run step by step.
 *
 * The turn is identified by its Workflow Update (`updateId`), never by an index: the index is assigned
 * when the turn is recorded. Retried after a crash, it answers a turn already recorded from its record,
 * and an LLM turn resumes from its last round that called tools (kept before the round's first tool
 * runs): the model is not asked again for an answer already acted on. The tool calls of the round in
 * flight may run twice.
 */
export async function answerTurn(ctx: CoreContext, input: TurnInput): Promise<TurnPlan> {
  const started = input.startedAt ?? Date.now();
  const id = derivedId('exec', input.sessionId, input.updateId);
  const { em, session, manifest, commands, recordedExecution, recordedTurn, resumedStep } = await loadSession(
    ctx,
    input.sessionId,
    { executionId: id, updateId: input.updateId },
  );
  if (recordedTurn) return { kind: 'recorded', turn: recordedTurn };
  // answered here: recorded at once, without a second step
  const answer = async (route: 'refusal' | 'fallback', reply: string): Promise<TurnPlan> => ({
    kind: 'recorded',
    turn: await recordTurn(ctx, {
      sessionId: session.id,
      updateId: input.updateId,
      text: input.text,
      reply: { text: reply },
      route,
      actions: [],
      error: null,
      latencyMs: Math.max(0, Date.now() - started),
    }),
  });
  const topic = outOfScopeTopic(input.text, manifest.knowledge?.out_of_scope_topics);
  if (topic) return answer('refusal', refusalReply(topic));

  const owner = ownerOf(session);
  const match = matchCommand(input.text, commands);
  if (match.kind === 'match') {
    const workflow = match.best.item;
    const found = recordedExecution;
    const execution =
      found ??
      em.create(
        WorkflowExecution,
        {
          id,
          account: owner.accountId,
          environment: owner.environment,
          workflowId: workflow.id,
          version: workflow.version,
          definition: { nodes: workflow.nodes, edges: workflow.edges },
          input: { utterance: input.text, sessionId: session.id, userId: session.userId },
          sessionId: session.id,
          match: { utterance: input.text, command: match.best.command, score: match.best.score },
          // run by the session's workflow: the dispatcher must not start it too
          workflowStartedAt: new Date(),
        },
        { persist: false },
      );
    // without side effects the graph runs here, and the turn is recorded with it: one step
    if (isPureGraph(execution.definition) && found?.status !== 'running') {
      return {
        kind: 'recorded',
        turn: await runPureCommand(ctx, execution, !found, {
          sessionId: session.id,
          updateId: input.updateId,
          text: input.text,
          workflowName: workflow.name,
          started,
        }),
      };
    }
    if (!found) {
      recordExecutionStart(em, execution);
      await em.flush();
    }
    return { kind: 'workflow', input: workflowInputOf(execution), workflowName: workflow.name };
  }

  if (ctx.config.llm.baseUrl) {
    const context = await buildAgentContext(ctx, em, session, manifest);
    const turn: TurnRef = {
      sessionId: session.id,
      updateId: input.updateId,
      text: input.text,
      startedAt: started,
    };
    let step: TurnStep;
    if (resumedStep) {
      // retried after a crash: the model's last answer that called tools was kept, its round runs again
      step = { kind: 'tools', step: resumedStep };
    } else {
      const messages: ChatMessage[] = [
        { role: 'system', content: context.system },
        ...context.history,
        { role: 'user', content: input.text },
      ];
      // the first round's model call is made here; an answer without a tool call (or a failure,
      // spoken as the fallback) is recorded at once
      const first = await chatCompletion(ctx, { messages, tools: context.tools });
      step = await settleAnswer(ctx, turn, first, { round: 1, messages, actions: [] });
    }
    const caller = callerOf(session);
    // each round (its tool calls, then the model's next answer) kept before its first tool runs
    while (step.kind === 'tools') {
      step = await continueTurn(ctx, {
        ...turn,
        step: step.step,
        tools: context.tools,
        owner,
        caller,
      });
    }
    return step;
  }

  return answer('fallback', commandsMenuReply(commands.map((c) => c.command)));
}

/** One chat completion with function tools. A failure is an answer (`ok: false`), never a throw. */
async function chatCompletion(
  ctx: CoreContext,
  input: { messages: ChatMessage[]; tools: AgentTool[] },
): Promise<ChatAnswer> {
  const { baseUrl, apiKey, model } = ctx.config.llm;
  if (!baseUrl) return { ok: false, error: 'No LLM provider is configured' };
  try {
    const response = await postJson(
      `${baseUrl.replace(/\/$/, '')}/chat/completions`,
      apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
      {
        model,
        messages: input.messages,
        ...(input.tools.length
          ? {
              tools: input.tools.map((t) => ({
                type: 'function',
                function: { name: t.name, description: t.description, parameters: t.parameters },
              })),
              tool_choice: 'auto',
            }
          : {}),
      },
      LLM_TIMEOUT_MS,
    );
    const { text } = response;
    if (!response.ok) return { ok: false, error: `LLM provider answered ${response.status}` };
    const message = (JSON.parse(text) as { choices?: { message?: Record<string, unknown> }[] }).choices?.[0]
      ?.message;
    if (!message) return { ok: false, error: 'The LLM provider returned no message' };
    const calls = (message.tool_calls ?? []) as ChatToolCall[];
    if (
      !Array.isArray(calls) ||
      calls.some((c) => typeof c?.id !== 'string' || typeof c.function?.name !== 'string')
    ) {
      return { ok: false, error: 'The LLM provider returned a malformed tool call' };
    }
    const content = typeof message.content === 'string' ? message.content : null;
    if (content === null && calls.length === 0)
      return { ok: false, error: 'The LLM provider returned an empty message' };
    return { ok: true, content, toolCalls: calls.map((c) => ({ ...c, type: 'function' as const })) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `LLM provider unreachable or malformed answer: ${reason}` };
  }
}

interface TurnRef {
  sessionId: string;
  /** The turn's Workflow Update: what identifies it until it is recorded (and after). */
  updateId: string;
  text: string;
  /** When the turn began (ms). */
  startedAt: number;
}

/**
 * The model's answer in round `round`: final (no tool call, the last round, or a failure spoken as
 * the fallback) → the turn, recorded; tool calls → the next round to run.
 */
async function settleAnswer(
  ctx: CoreContext,
  turn: TurnRef,
  answer: ChatAnswer,
  so: { round: number; messages: ChatMessage[]; actions: TurnAction[] },
): Promise<TurnStep> {
  if (answer.ok && answer.toolCalls.length > 0 && so.round < LLM_ROUNDS) {
    return {
      kind: 'tools',
      step: { ...so, content: answer.content, toolCalls: answer.toolCalls },
    };
  }
  const error = !answer.ok ? answer.error : answer.toolCalls.length > 0 ? TOOLS_AFTER_LAST_ROUND : null;
  return {
    kind: 'recorded',
    turn: await recordTurn(ctx, {
      sessionId: turn.sessionId,
      updateId: turn.updateId,
      text: turn.text,
      reply: { text: (answer.ok && answer.content?.trim()) || FALLBACK_REPLY },
      route: 'llm',
      actions: so.actions,
      error,
      latencyMs: Math.max(0, Date.now() - turn.startedAt),
    }),
  };
}

/**
 * One round of an LLM turn as one step: runs the tool calls of `step` (each validated, with its
 * `tool.called` and `tool.completed` / `tool.failed` events), sends their results to the model, and
 * settles its answer (recorded if final). The round is kept (answerTurn resumes from it after a
 * crash), written before its first tool runs; a retry after a crash runs the round's tools again.
 */
async function continueTurn(
  ctx: CoreContext,
  input: TurnRef & {
    step: ToolRound;
    tools: AgentTool[];
    owner: Owner;
    caller: Caller;
  },
): Promise<TurnStep> {
  const { step } = input;
  const messages: ChatMessage[] = [
    ...step.messages,
    { role: 'assistant', content: step.content, tool_calls: step.toolCalls },
  ];
  const actions = [...step.actions];
  // written while the first tool's `tool.called` is (the tool waits for both)
  const kept = keepRound(ctx, input, step);
  kept.catch(() => undefined); // handled here; awaited below
  // each tool's outcome event is written while the next tool (or the model) runs; all are written
  // before the step answers
  const outcomeEvents: Promise<void>[] = [];
  for (const call of step.toolCalls) {
    const ran = await startAgentTool(ctx, {
      sessionId: input.sessionId,
      call,
      tools: input.tools,
      owner: input.owner,
      caller: input.caller,
      before: kept,
    });
    outcomeEvents.push(ran.outcomeEvent);
    actions.push(ran.action);
    messages.push({ role: 'tool', tool_call_id: call.id, content: ran.content });
  }
  const [answer] = await Promise.all([
    chatCompletion(ctx, { messages, tools: input.tools }),
    ...outcomeEvents,
    kept,
  ]);
  return settleAnswer(ctx, input, answer, { round: step.round + 1, messages, actions });
}

/** Keeps a round whose answer called tools, once (the turn's record removes it). */
async function keepRound(ctx: CoreContext, turn: TurnRef, step: ToolRound): Promise<void> {
  await preparedQuery(
    ctx.orm.em.getConnection().getKnex(),
    'session-keep-round',
    'insert into session_turn_rounds (session_id, update_id, round, step, created_at) values (?, ?, ?, ?::jsonb, now()) on conflict do nothing',
  )([turn.sessionId, turn.updateId, step.round, JSON.stringify(step)]);
}

/**
 * Runs one tool call the model made: the name must be an offered tool and the arguments a JSON object
 * matching its parameters (otherwise the model is told why, and nothing runs). Custom tools run as
 * POST /tools/:id/test runs them; MCP tools through the kept MCP session. Both emit `tool.called`
 * and `tool.completed` / `tool.failed` with the session id.
 */
interface AgentToolInput {
  sessionId: string;
  call: ChatToolCall;
  tools: AgentTool[];
  owner: Owner;
  caller: Caller;
  /** What must be written before the tool runs (the kept round), if anything. */
  before?: Promise<void>;
}

/**
 * Answers when the tool has: `outcomeEvent` is the write of its outcome event still under way (see
 * startToolWithEvents), for the caller to await before its step ends.
 */
async function startAgentTool(
  ctx: CoreContext,
  input: AgentToolInput,
): Promise<{ action: TurnAction; content: string; outcomeEvent: Promise<void> }> {
  const written = Promise.resolve();
  const em = ctx.orm.em.fork();
  const { owner, caller } = input;
  const offered = input.tools.find((t) => t.name === input.call.function.name);
  const refused = (
    error: string,
    toolId = 'unknown',
  ): { action: TurnAction; content: string; outcomeEvent: Promise<void> } => ({
    outcomeEvent: written,
    action: {
      type: 'tool',
      tool: input.call.function.name,
      toolId,
      arguments: {},
      success: false,
      error,
      durationMs: 0,
    },
    content: JSON.stringify({ error }),
  });
  if (!offered) return refused(`No tool named ${input.call.function.name} is available`);
  let args: Record<string, unknown>;
  try {
    const parsed = JSON.parse(input.call.function.arguments || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    args = parsed as Record<string, unknown>;
  } catch {
    return refused('The arguments are not a JSON object', toolIdOf(offered));
  }

  if (offered.ref.kind === 'custom') {
    const [tool] = await Promise.all([
      em.findOne(Tool, { id: offered.ref.toolId, account: owner.accountId, environment: owner.environment }),
      input.before,
    ]);
    if (!tool) return refused('The tool no longer exists', offered.ref.toolId);
    try {
      const result = await executeTool(ctx, owner, tool, args, input.sessionId);
      return {
        outcomeEvent: written,
        action: { type: 'tool', tool: offered.name, toolId: tool.id, arguments: args, ...result },
        content: JSON.stringify(result.success ? { result: result.result } : { error: result.error }),
      };
    } catch (error) {
      if (error instanceof ApiError) {
        const reason = `Invalid arguments: ${error.validationErrors?.join('; ') ?? error.message}`;
        const answer = refused(reason, tool.id);
        return { ...answer, action: { ...answer.action, arguments: args } as TurnAction };
      }
      throw error;
    }
  }

  const toolId = toolIdOf(offered);
  if (offered.ref.kind === 'marketplace') {
    const { itemId } = offered.ref;
    const marketCaller = caller;
    const { result, outcomeEvent } = await startToolWithEvents(
      ctx,
      owner,
      { sessionId: input.sessionId, toolId, toolName: offered.name },
      args,
      {
        prepare: async () => {
          await input.before;
          return async () => {
            const run = await executeInstalledTool(ctx, {
              userId: marketCaller.userId,
              tier: marketCaller.tier,
              itemId,
              arguments: args,
            });
            if (run.status === 'refused') return { success: false, error: run.message };
            return run.success
              ? { success: true, result: run.result }
              : { success: false, error: run.error ?? 'The tool failed' };
          };
        },
      },
    );
    return {
      outcomeEvent,
      action: { type: 'tool', tool: offered.name, toolId, arguments: args, ...result },
      content: JSON.stringify(result.success ? { result: result.result } : { error: result.error }),
    };
  }
  const { serverId, toolName } = offered.ref;
  const { result, outcomeEvent } = await startToolWithEvents(
    ctx,
    owner,
    { sessionId: input.sessionId, toolId, toolName },
    args,
    {
      prepare: async () =>
        (
          await Promise.all([
            prepareMcpCall(ctx, owner, { serverId, toolName, arguments: args }),
            input.before,
          ])
        )[0],
    },
  );
  return {
    outcomeEvent,
    action: { type: 'tool', tool: offered.name, toolId, arguments: args, ...result },
    content: JSON.stringify(result.success ? { result: result.result } : { error: result.error }),
  };
}

const toolIdOf = (t: AgentTool) =>
  t.ref.kind === 'custom'
    ? t.ref.toolId
    : t.ref.kind === 'marketplace'
      ? `marketplace/${t.ref.itemId}`
      : `${t.ref.serverId}/${t.ref.toolName}`;

/** A turn as recorded, before the record gives it its index: identified by its Workflow Update. */
export type TurnEntry = { sessionId: string; updateId: string } & Omit<TurnRecord, 'index'>;

/**
 * Records a turn once, in one statement, at the next free index of its session, and counts it on the
 * session. A retried step finds it recorded (by its update) and answers the stored turn. Two turns
 * recorded at the same moment cannot take the same index (the primary key refuses the second, which
 * takes the next one).
 */
export async function recordTurn(ctx: CoreContext, input: TurnEntry): Promise<TurnRecord> {
  const clears = clearsRounds(input);
  const record = preparedQuery<TurnRow>(
    ctx.orm.em.getConnection().getKnex(),
    clears ? 'session-turn-record-clear' : 'session-turn-record',
    insertTurnSql(clears),
  );
  for (let attempt = 1; ; attempt++) {
    const [row] = await record(insertTurnValues(input, clears));
    if (row) return turnRecordOfRow(row);
    if (attempt === 5) throw new Error(`Turn ${input.updateId} of ${input.sessionId} could not be recorded`);
  }
}

/** A model's turn (or one that could not finish): the rounds kept while it was in flight (answerTurn) go. */
const clearsRounds = (turn: Pick<TurnRecord, 'route'>) => turn.route === 'llm' || turn.route === 'fallback';

const TURN_COLUMNS = 'session_id, index, text, reply, route, actions, error, latency_ms, created_at';

/**
 * Inserts the turn once, at its session's next index, counts it on the session, lets the session's
 * next turn in (the API's claim for this turn, src/sessions/turn-claims.ts), and answers the turn as
 * stored; no row when another turn took that index at the same moment (then run it again).
 */
const insertTurnSql = (clearsRounds: boolean, before?: string) =>
  `with ${before ? `${before}, ` : ''}inserted as (
     insert into session_turns (update_id, ${TURN_COLUMNS})
     select ?, ?, coalesce(max(index), 0) + 1, ?, ?, ?, ?::jsonb, ?, ?, now() from session_turns where session_id = ?
     on conflict do nothing returning ${TURN_COLUMNS}
   ), counted as (
     update sessions set turn_count = greatest(turn_count, (select index from inserted)), updated_at = now()
      where id = ?
   ), released as (
     delete from session_turn_claims where session_id = ? and claim_id = ?
   )${clearsRounds ? ', cleared as (delete from session_turn_rounds where session_id = ? and update_id = ?)' : ''}
   select * from inserted
   union all
   select ${TURN_COLUMNS} from session_turns
    where session_id = ? and update_id = ? and not exists (select 1 from inserted)`;

const insertTurnValues = (input: TurnEntry, clearsRounds: boolean) => [
  input.updateId,
  input.sessionId,
  input.text,
  input.reply.text,
  input.route,
  JSON.stringify(input.actions),
  input.error,
  input.latencyMs,
  input.sessionId,
  input.sessionId,
  input.sessionId,
  input.updateId,
  ...(clearsRounds ? [input.sessionId, input.updateId] : []),
  input.sessionId,
  input.updateId,
];

/** A `session_turns` row as the turn statements return it (TURN_COLUMNS), or as `to_jsonb` renders it. */
interface TurnRow {
  index: number;
  text: string;
  reply: string;
  route: TurnRoute;
  actions: TurnAction[];
  error: string | null;
  latency_ms: number;
}

/** The turn of a row the turn statements returned: read as is, without an entity manager (hot path). */
const turnRecordOfRow = ({ latency_ms, ...row }: TurnRow): TurnRecord =>
  turnRecord({ ...row, latencyMs: latency_ms });

export function turnRecord(
  t: Pick<SessionTurn, 'index' | 'text' | 'reply' | 'route' | 'actions' | 'error' | 'latencyMs'>,
): TurnRecord {
  return {
    index: t.index,
    text: t.text,
    reply: { text: t.reply },
    route: t.route,
    actions: t.actions,
    error: t.error ?? null,
    latencyMs: t.latencyMs,
  };
}

/**
 * Ends a session once: status, end time and reason, and `session.ended` (duration in ms, turn
 * count) with an id derived from the session, in one transaction. Answers the session's end.
 */
export async function endSession(
  ctx: CoreContext,
  input: { sessionId: string; reason: SessionEndReason },
): Promise<{ endedAt: string; turnCount: number; durationMs: number }> {
  const em = ctx.orm.em.fork();
  return em.transactional(async (tem) => {
    const session = await tem.findOneOrFail(
      Session,
      { id: input.sessionId },
      { lockMode: 4 /* PESSIMISTIC_WRITE */ },
    );
    if (session.status === 'active') {
      const endedAt = new Date();
      tem.assign(session, { status: 'ended', endedAt, endReason: input.reason });
      emitEvent(tem, {
        id: derivedId('evt', session.id, 'ended'),
        accountId: session.account,
        environment: session.environment,
        type: 'session.ended',
        personaId: session.personaId,
        data: {
          sessionId: session.id,
          userId: session.userId,
          personaId: session.personaId,
          duration: endedAt.getTime() - session.startedAt.getTime(),
          turnCount: session.turnCount,
          reason: input.reason,
        },
      });
    }
    const endedAt = session.endedAt ?? new Date();
    return {
      endedAt: endedAt.toISOString(),
      turnCount: session.turnCount,
      durationMs: endedAt.getTime() - session.startedAt.getTime(),
    };
  });
}
