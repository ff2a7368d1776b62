import type { AppContext } from '../../common/context';
import { ApiError } from '../../http/errors';
import { answerTurn } from '../turn/answer-turn';
import type { CallControls } from '../turn/call-tools';
import { TurnHold } from '../turn/turn-hold';
import type { TurnAnswer, TurnListener } from '../turn/turn-listener';
import { recordTurnInWorkflow } from '../turn/turn-store';
import type { TurnRecord } from '../turn-types';
import type { ServerMessage } from './protocol';
import type { ReplyPlayback } from './reply-playback';
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
  /** Where the caller's player is (a phone carrier confirms it); reckoned in real time when not given. */
  playback?: ReplyPlayback;
  send(message: ServerMessage): void;
  sendAudio(frame: Uint8Array): void;
  /** The reply has played (or was interrupted): the agent no longer speaks. */
  onReplyOver(): void;
  /** What the call lets the agent do to it (a phone call's): its call tools. */
  call?: CallControls;
}

/** A streamed turn as it ended: recorded (or why not), with the reply audio sent, for the recording. */
export interface StreamTurnResult {
  turn?: TurnRecord;
  replyAudio?: { pcm: Int16Array; sampleRate: number };
}

/** The holds of the turns a call has taken and not yet ended, by turn id. */
const waitingHolds = new Map<string, TurnHold>();

/**
 * Holds the session from now until `until` settles (docs/sessions.md "Idleness"): a turn the caller
 * said while the agent still speaks waits behind the greeting or the turn before it, and the greeting
 * is the agent speaking; neither is silence. A turn run meanwhile under `holdId` (its turn id) takes
 * this hold over, so its record ends it; a hold whose turn never ran, or the greeting's, is given back
 * when `until` settles, and the session idles from then.
 */
export function holdSessionUntil(
  ctx: AppContext,
  sessionId: string,
  holdId: string,
  until: Promise<unknown>,
): void {
  const hold = new TurnHold(ctx, sessionId, holdId);
  hold.begin();
  waitingHolds.set(holdId, hold);
  const over = () => {
    waitingHolds.delete(holdId);
    hold.release(false);
  };
  until.then(over, over);
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
    sound: ({ pcm, sampleRate }) => speech.sound(pcm, sampleRate),
    drain: () => speech.drain(),
    workflowStep: (step) => send({ type: 'workflow.step', turnId, ...step }),
  };
}

/**
 * One turn of a live call (docs/voice-stream.md "Messages"): the turn engine answers it with this
 * call's listener (text deltas out at once, the reply spoken segment by segment, tool and workflow
 * events); once the reply has played, or was interrupted, the session's workflow records it
 * (`interrupted` and what was heard) and the call hears `turn.recorded`. A turn that fails is an
 * `error` event. From its start to its record the turn holds the session (src/sessions/turn/turn-hold.ts).
 */
export async function runStreamTurn(input: StreamTurnInput): Promise<StreamTurnResult> {
  // the reply plays for seconds whatever answers it: the session is held (since the caller's input
  // was taken, when the call said so) until the turn is recorded, so idleness counts from the reply's end
  const hold = waitingHolds.get(input.turnId) ?? new TurnHold(input.ctx, input.sessionId, input.turnId);
  hold.begin();
  let result: StreamTurnResult = {};
  try {
    result = await answerAndRecord(input, hold);
    return result;
  } finally {
    hold.release(result.turn !== undefined);
  }
}

async function answerAndRecord(input: StreamTurnInput, hold: TurnHold): Promise<StreamTurnResult> {
  const { ctx, send, turnId } = input;
  // the reply's speech stops when the caller interrupts, or when the turn fails
  const failed = new AbortController();
  const speech = new ReplySpeech({
    turnId,
    voiceId: input.voiceId,
    synthesize: (voiceId, text) => ctx.speech.streamPcm(voiceId, text),
    send,
    sendAudio: input.sendAudio,
    signal: AbortSignal.any([input.signal, failed.signal]),
    playback: input.playback,
    onError: (error) =>
      ctx.logger.warn({ err: error, sessionId: input.sessionId }, 'could not synthesize a segment'),
  });
  input.signal.addEventListener('abort', () =>
    send({ type: 'interrupted', turnId, spokenText: speech.spokenText() }),
  );
  let answer: TurnAnswer;
  try {
    answer = await answerTurn(ctx, { ...input, listener: streamListener(input, speech), hold });
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
