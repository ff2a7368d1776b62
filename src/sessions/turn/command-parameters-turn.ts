import { z } from 'zod';
import type { AppContext } from '../../common/context';
import {
  type CommandParameter,
  commandParametersOf,
  commandScore,
  type FilledParameters,
  fillFromAnswer,
  fillParameters,
  type ParameterValue,
  parameterValueOf,
  type VoiceCommandWorkflow,
} from '../../voice-workflows';
import type { ChatMessage } from '../agent-context';
import { conversationSettings } from '../persona-prompt';
import { commandsMenuReply, parameterLabel, parameterQuestion } from '../turn-rules';
import { answerWithCommand } from './command-turn';
import { askModel } from './model-client';
import { answerWithModel } from './model-turn';
import { answer, say } from './turn-answer';
import type { TurnAnswer, TurnRequest } from './turn-listener';
import type { AwaitingCommand, TurnSession } from './turn-session';

/**
 * A voice command's parameters (docs/voice-workflows.md "Commands that take parameters"): filled
 * from what the caller said (the words in a placeholder's place, a pattern, a type), else by the
 * model, in one bounded call; a required one still missing is asked for, and the caller's next turn
 * answers it. The question is recorded with the turn (an `awaiting_input` action), so the next turn
 * finds it whatever API process serves it (src/sessions/turn/turn-session.ts).
 */

/** The one call that asks the model for parameters: it answers at once or not at all. */
const EXTRACTION_TIMEOUT_MS = 10_000;
const EXTRACTION_MAX_TOKENS = 300;

type Matched = { item: VoiceCommandWorkflow; command: string; score: number };

/** A command the utterance matched: its parameters are filled, or asked for, before it runs. */
export async function answerMatchedCommand(
  ctx: AppContext,
  turn: TurnRequest,
  loaded: TurnSession,
  best: Matched,
): Promise<TurnAnswer> {
  const parameters = commandParametersOf(best.item.trigger);
  const run = { ...best, utterance: turn.text };
  if (parameters.length === 0) return answerWithCommand(ctx, turn, loaded, { ...run, parameters: null });
  let filled = fillParameters(best.command, parameters, turn.text);
  filled = await withModelValues(ctx, turn, loaded, filled, { command: best.command });
  const required = filled.missing.filter((p) => p.required !== false);
  if (required.length === 0)
    return answerWithCommand(ctx, turn, loaded, { ...run, parameters: filled.values });
  return askForParameters(turn, best.item, filled.values, required);
}

/**
 * The caller's answer to the question for a command's parameters: once they are all given the
 * command runs; a required one still missing hands the turn to the model (or, without one, the
 * agent says which commands it knows). When the caller says the command again, its words are read
 * as they were the first time.
 */
export async function answerAwaitingCommand(
  ctx: AppContext,
  turn: TurnRequest,
  loaded: TurnSession,
  awaiting: AwaitingCommand,
  saidAgain: Matched | null,
): Promise<TurnAnswer> {
  const { item, command } = awaiting;
  let filled = saidAgain
    ? fillParameters(command, awaiting.missing, turn.text)
    : fillFromAnswer(awaiting.missing, turn.text);
  const question = parameterQuestion(item.name, awaiting.missing);
  filled = await withModelValues(ctx, turn, loaded, filled, { command, question });
  const values = { ...awaiting.values, ...filled.values };
  if (filled.missing.some((p) => p.required !== false)) {
    if (!ctx.config.llm.baseUrl)
      return say(turn, 'fallback', commandsMenuReply(loaded.commands.map((c) => c.command)));
    turn.hold?.begin();
    return answerWithModel(ctx, turn, loaded);
  }
  const run = saidAgain ?? { item, command, score: commandScore(awaiting.utterance, command) };
  const utterance = saidAgain ? turn.text : awaiting.utterance;
  return answerWithCommand(ctx, turn, loaded, { ...run, utterance, parameters: values });
}

/** The agent asks for the missing parameters; the turn records what it asked (`awaiting_input`). */
function askForParameters(
  turn: TurnRequest,
  workflow: VoiceCommandWorkflow,
  values: Record<string, ParameterValue>,
  missing: CommandParameter[],
): TurnAnswer {
  const reply = parameterQuestion(workflow.name, missing);
  turn.listener.text(reply);
  const action = {
    type: 'workflow' as const,
    workflowId: workflow.id,
    workflowName: workflow.name,
    executionId: null,
    status: 'awaiting_input',
    durationMs: 0,
    parameters: values,
    missing: missing.map((p) => p.name),
  };
  return answer(turn, { route: 'workflow', reply, actions: [action], error: null });
}

/**
 * The parameters still missing, asked of the model (with one configured) in one bounded call for a
 * JSON object; each value it gives must fit its parameter as a value said would.
 */
async function withModelValues(
  ctx: AppContext,
  turn: TurnRequest,
  loaded: TurnSession,
  filled: FilledParameters,
  asked: { command: string; question?: string },
): Promise<FilledParameters> {
  if (filled.missing.length === 0 || !ctx.config.llm.baseUrl || turn.signal.aborted) return filled;
  turn.hold?.begin();
  const { model } = conversationSettings(loaded.manifest, ctx.config.llm.model);
  const answered = await askModel(ctx, {
    messages: extractionMessages(filled.missing, turn.text, asked),
    tools: [],
    model: { ...model, temperature: 0, maxTokens: EXTRACTION_MAX_TOKENS },
    accountId: loaded.session.account,
    signal: AbortSignal.any([turn.signal, AbortSignal.timeout(EXTRACTION_TIMEOUT_MS)]),
    onText: () => undefined,
  });
  const given = answered.ok ? jsonObjectIn(answered.content ?? '') : {};
  const values = { ...filled.values };
  const missing: CommandParameter[] = [];
  for (const parameter of filled.missing) {
    const value = Object.hasOwn(given, parameter.name)
      ? parameterValueOf(parameter, given[parameter.name])
      : undefined;
    if (value === undefined) missing.push(parameter);
    else values[parameter.name] = value;
  }
  return { values, missing };
}

/** The request for the missing parameters: what each is, then what the caller said. */
function extractionMessages(
  missing: CommandParameter[],
  utterance: string,
  asked: { command: string; question?: string },
): ChatMessage[] {
  const typeOf = (p: CommandParameter) =>
    Array.isArray(p.type)
      ? `one of ${p.type.map((v) => JSON.stringify(v)).join(', ')}`
      : (p.type ?? 'string');
  const lines = missing.map((p) => `- ${p.name} (${typeOf(p)}): ${parameterLabel(p)}`);
  const system = [
    `You extract the parameters of the voice command "${asked.command}" from what the caller said.`,
    'Parameters:',
    ...lines,
    'Answer with one JSON object and nothing else: each parameter name as a key, its value as the caller gave it, or null when they did not give it. Never guess.',
  ].join('\n');
  return [
    { role: 'system', content: system },
    ...(asked.question ? [{ role: 'assistant' as const, content: asked.question }] : []),
    { role: 'user', content: utterance },
  ];
}

/** The JSON object in a model's answer (fenced or not), or an empty one. */
function jsonObjectIn(content: string): Record<string, unknown> {
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start < 0 || end <= start) return {};
  try {
    const parsed = ModelValues.safeParse(JSON.parse(content.slice(start, end + 1)));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** What the model may answer: a value (or null) per parameter; anything else counts as not given. */
const ModelValues = z.record(z.string(), z.union([z.string(), z.number(), z.null()]).catch(null));
