import type { AppContext } from '../../common/context';
import type { ServerMessage } from './protocol';
import type { ReplyPlayback } from './reply-playback';
import { ReplySpeech } from './reply-speech';

/**
 * Speaks a line that is no reply: the session's greeting (turn id `greeting`), or a call's closing
 * line (`closing`). Its audio, then `reply.done` (with what was heard of it, when interrupted);
 * resolves once it has played, so the caller's first words, said over a greeting, interrupt it.
 */
export async function speakLine(input: {
  ctx: AppContext;
  line: string;
  /** The line's turn id: `greeting`, or `closing` for a call's last words. */
  turnId: string;
  voiceId: string;
  signal: AbortSignal;
  /** Where the caller's player is; reckoned in real time when not given. */
  playback?: ReplyPlayback;
  send(message: ServerMessage): void;
  sendAudio(frame: Uint8Array): void;
}): Promise<void> {
  const { ctx, signal, turnId } = input;
  const speech = new ReplySpeech({
    turnId,
    voiceId: input.voiceId,
    synthesize: (voiceId, text) => ctx.speech.streamPcm(voiceId, text),
    send: input.send,
    sendAudio: input.sendAudio,
    signal,
    playback: input.playback,
    onError: (error) => ctx.logger.warn({ err: error }, 'could not synthesize a spoken line'),
  });
  speech.push(input.line);
  await speech.finish();
  const interrupted = signal.aborted;
  const text = interrupted ? speech.spokenText() : input.line;
  input.send({ type: 'reply.done', turnId, text, interrupted });
  await speech.played();
}
