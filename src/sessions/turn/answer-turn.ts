import type { AppContext } from '../../common/context';
import { voiceTurnDuration } from '../../telemetry/metrics';
import { inSpan } from '../../telemetry/tracing';
import { matchCommand } from '../../voice-workflows';
import { commandsMenuReply, outOfScopeTopic, refusalReply } from '../turn-rules';
import { answerAwaitingCommand, answerMatchedCommand } from './command-parameters-turn';
import { answerWithModel } from './model-turn';
import { say } from './turn-answer';
import type { TurnAnswer, TurnRequest } from './turn-listener';
import { loadTurnSession, type TurnSession } from './turn-session';

/**
 * How the agent answers a turn (docs/sessions.md "How the agent answers"), in order:
 * 1. an out-of-scope topic of the persona → a polite refusal (no model, no tool);
 * 2. the answer to a question the last turn asked for a voice command's parameters → the command
 *    runs with them (src/sessions/turn/command-parameters-turn.ts);
 * 3. a `voice_command` workflow whose command matches → its parameters are filled (or asked for),
 *    it runs (here when it has no side effect, recorded with the turn; else step by step in the
 *    session's workflow) and its `speak` steps are the reply; if it fails, the model answers, told
 *    why (src/sessions/turn/command-turn.ts);
 * 4. an LLM configured → the model, streamed, and its tool rounds (the tools run in the workflow);
 * 5. else a reply naming the voice commands the agent knows.
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
  const { awaiting } = loaded;
  // another command said instead of an answer is that command
  if (awaiting && (match.kind !== 'match' || match.best.item.id === awaiting.item.id)) {
    const saidAgain = match.kind === 'match' ? match.best : null;
    return answerAwaitingCommand(ctx, turn, loaded, awaiting, saidAgain);
  }
  if (match.kind === 'match') return answerMatchedCommand(ctx, turn, loaded, match.best);
  if (ctx.config.llm.baseUrl) {
    // the model may take a while: the session's idle timer must not end the session under the turn
    turn.hold?.begin();
    return answerWithModel(ctx, turn, loaded);
  }
  return say(turn, 'fallback', commandsMenuReply(loaded.commands.map((c) => c.command)));
}
