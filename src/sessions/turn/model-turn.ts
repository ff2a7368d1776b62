import type { AppContext } from '../../common/context';
import { buildAgentContext, type ChatMessage, ownerOf } from '../agent-context';
import { callerOf } from '../agent-tools';
import type { TurnAction } from '../session.entity';
import { FALLBACK_REPLY, LLM_ROUNDS, TOOLS_AFTER_LAST_ROUND } from '../turn-rules';
import { callTools, handsCallOn } from './call-tools';
import { searchKnowledgeTool } from './knowledge-tool';
import { knowledgeForTurn } from './knowledge-turn';
import { askModel } from './model-client';
import { answer } from './turn-answer';
import type { TurnAnswer, TurnRequest } from './turn-listener';
import type { TurnSession } from './turn-session';
import { runToolRound } from './turn-tools';

/**
 * What a turn hands over to the model after something else had its go (a voice command that
 * failed): what the model is told besides the conversation, what was said and done already, and
 * what to say if the model fails too.
 */
export interface ModelHandoff {
  context: ChatMessage[];
  said: string[];
  actions: TurnAction[];
  fallback: string;
}

/**
 * The model, streamed, with every tool of the account as a function: each round's text goes out as it
 * arrives; tool calls run in the session's workflow and their results go back to the model, at most
 * LLM_ROUNDS completions a turn. The reply is the text of every round. A failure is spoken as the
 * fallback with its error; an interruption stops the model and keeps what was said.
 */
export async function answerWithModel(
  ctx: AppContext,
  turn: TurnRequest,
  loaded: TurnSession,
  handoff?: ModelHandoff,
): Promise<TurnAnswer> {
  const { em, session, manifest } = loaded;
  // the persona's knowledge is retrieved while the context is read (within its time budget)
  const retrieving = knowledgeForTurn(ctx, ownerOf(session), manifest.knowledge?.bases, turn.text);
  // on a phone call, the call tools (end_call, press_digits, transfer_call) win over a namesake, and
  // so does search_knowledge on a persona with bases
  const context = await buildAgentContext(ctx, em, session, manifest);
  const knowledge = await retrieving;
  const offeredCallTools = ctx.config.llm.baseUrl ? callTools(turn.call) : [];
  const baseIds = manifest.knowledge?.bases ?? [];
  const builtIn = [...offeredCallTools, ...(baseIds.length ? [searchKnowledgeTool] : [])];
  const tools = [...context.tools.filter((t) => !builtIn.some((c) => c.name === t.name)), ...builtIn];
  const messages: ChatMessage[] = [
    { role: 'system', content: context.system },
    ...context.history,
    ...(knowledge?.message ? [knowledge.message] : []),
    { role: 'user', content: turn.text },
    ...(handoff?.context ?? []),
  ];
  const said: string[] = [...(handoff?.said ?? [])];
  const actions: TurnAction[] = [...(handoff?.actions ?? []), ...(knowledge ? [knowledge.action] : [])];
  const fallback = handoff?.fallback ?? FALLBACK_REPLY;
  const reply = () => said.join(' ').trim();
  // nothing from the model: the fallback is heard after what was said before it
  const ending = () => {
    if (said.length > (handoff?.said.length ?? 0)) return reply();
    turn.listener.text(fallback);
    return [...said, fallback].join(' ');
  };
  for (let round = 1; ; round++) {
    const model = await askModel(ctx, {
      messages,
      tools,
      model: context.conversation.model,
      accountId: session.account,
      signal: turn.signal,
      onText: (text) => turn.listener.text(text),
    });
    if (model.content?.trim()) said.push(model.content.trim());
    if (!model.ok) {
      if (model.interrupted) return answer(turn, { route: 'llm', reply: reply(), actions, error: null });
      return answer(turn, { route: 'llm', reply: ending(), actions, error: model.error });
    }
    const last = round === LLM_ROUNDS || turn.signal.aborted;
    if (model.toolCalls.length === 0 || last) {
      const error = model.toolCalls.length > 0 && !turn.signal.aborted ? TOOLS_AFTER_LAST_ROUND : null;
      return answer(turn, { route: 'llm', reply: ending(), actions, error });
    }
    const outcomes = await runToolRound(
      ctx,
      { ...turn, ...(baseIds.length ? { knowledge: { owner: ownerOf(session), baseIds } } : {}) },
      {
        round,
        calls: model.toolCalls,
        tools,
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
    // the agent hung up or transferred the call: what it said is its last word, the model is not asked again
    if (outcomes.some((o) => handsCallOn(o.action)))
      return answer(turn, { route: 'llm', reply: reply(), actions, error: null });
  }
}
