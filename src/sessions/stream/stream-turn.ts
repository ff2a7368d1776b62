import type { AppContext } from '../../common/context';
import { ApiError } from '../../http/errors';
import { answerTurn } from '../turn/answer-turn';
import type { TurnAnswer, TurnListener } from '../turn/turn-listener';
import { recordTurnInWorkflow } from '../turn/turn-store';
import type { TurnRecord } from '../turn-types';
import type { ServerMessage } from './protocol';
import { ReplySpeech } from './reply-speech';

/** What a streamed turn needs of its call. */
export interface StreamTurnInput {
  ctx: AppContext;
  sessionId: string;
  turnId: string;
  text: string;
  /** When the caller's input ended (the text arrived, or the utterance's last audio frame). */
  startedAt: number;
  voiceId: string;
  /** Aborted by an interruption (or the caller leaving). */
  signal: AbortSignal;
  send(message: ServerMessage): void;
  sendAudio(frame: Uint8Array): void;
  /** The reply has played (or was interrupted): the agent no longer speaks. */
  onReplyOver(): void;
}

/** A streamed turn as it ended: recorded (or why not), with the reply audio sent, for the recording. */
export interface StreamTurnResult {
  turn?: TurnRecord;
  replyAudio?: { pcm: Int16Array; sampleRate: number };
}

/** Events of the engine, as the stream sends them; the reply's text also goes to its speech. */
function streamListener(input: StreamTurnInput, speech: ReplySpeech): TurnListener {
  const { turnId, send } = input;
  return {
    text: (text) => {
      if (input.signal.aborted) return;
      send({ type: 'reply.delta', turnId, text });
      speech.push(text);
    },
    toolStarted: (call) =>
      send({ type: 'tool.started', turnId, callId: call.id, name: call.name, arguments: call.arguments }),
    toolFinished: (call) => send({ type: 'tool.finished', turnId, callId: call.id, ...call }),
    hold: (phrase) => speech.hold(phrase),
    workflowStep: (step) => send({ type: 'workflow.step', turnId, ...step }),
  };
}

/**
 * One turn of a live call (docs/voice-stream.md "Messages"): the turn engine answers it with this
 * call's listener (text deltas out at once, the reply spoken segment by segment, tool and workflow
 * events); once the reply has played, or was interrupted, the session's workflow records it
 * (`interrupted` and what was heard) and the call hears `turn.recorded`. A turn that fails is an
 * `error` event.
 */
export async function runStreamTurn(input: StreamTurnInput): Promise<StreamTurnResult> {
  const { ctx, send, turnId } = input;
  // the reply's speech stops when the caller interrupts, or when the turn fails
  const failed = new AbortController();
  const speech = new ReplySpeech({
    turnId,
    voiceId: input.voiceId,
    synthesize: (voiceId, text) => ctx.speech.speakPcm(voiceId, text),
    send,
    sendAudio: input.sendAudio,
    signal: AbortSignal.any([input.signal, failed.signal]),
    onError: (error) =>
      ctx.logger.warn({ err: error, sessionId: input.sessionId }, 'could not synthesize a segment'),
  });
  input.signal.addEventListener('abort', () =>
    send({ type: 'interrupted', turnId, spokenText: speech.spokenText() }),
  );
  let answer: TurnAnswer;
  try {
    answer = await answerTurn(ctx, { ...input, listener: streamListener(input, speech) });
    await speech.finish();
  } catch (error) {
    failed.abort();
    input.onReplyOver();
    send({ type: 'error', code: 'TURN_FAILED', message: failureMessage(error) });
    return {};
  }
  send({
    type: 'reply.done',
    turnId,
    text: input.signal.aborted ? speech.spokenText() : answer.reply.text,
    interrupted: input.signal.aborted,
  });
  // the caller may still interrupt while the reply plays; the turn is recorded once it has played
  await speech.played();
  input.onReplyOver();
  const interrupted = input.signal.aborted;
  const spokenText = interrupted ? speech.spokenText() : answer.reply.text;
  try {
    const turn = await recordTurnInWorkflow(ctx, {
      sessionId: input.sessionId,
      turnId,
      ...answer,
      interrupted,
      spokenText,
    });
    send({ type: 'turn.recorded', turnId, turn });
    return { turn, replyAudio: speech.audio() };
  } catch (error) {
    send({ type: 'error', code: 'TURN_FAILED', message: failureMessage(error) });
    return { replyAudio: speech.audio() };
  }
}

function failureMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return `The turn could not finish: ${error instanceof Error ? error.message : String(error)}`;
}
