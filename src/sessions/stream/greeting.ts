import type { AppContext } from '../../common/context';
import type { ServerMessage } from './protocol';
import type { ReplyPlayback } from './reply-playback';
import { ReplySpeech } from './reply-speech';

/**
 * Speaks the session's greeting (turn id `greeting`): its audio, then `reply.done` (with what was
 * heard of it, when interrupted); resolves once it has played, so the caller's first words, said
 * over it, interrupt it.
 */
export async function speakGreeting(input: {
  ctx: AppContext;
  greeting: string;
  voiceId: string;
  signal: AbortSignal;
  /** Where the caller's player is; reckoned in real time when not given. */
  playback?: ReplyPlayback;
  send(message: ServerMessage): void;
  sendAudio(frame: Uint8Array): void;
}): Promise<void> {
  const { ctx, signal } = input;
  const speech = new ReplySpeech({
    turnId: 'greeting',
    voiceId: input.voiceId,
    synthesize: (voiceId, text) => ctx.speech.speakPcm(voiceId, text),
    send: input.send,
    sendAudio: input.sendAudio,
    signal,
    playback: input.playback,
    onError: (error) => ctx.logger.warn({ err: error }, 'could not synthesize the greeting'),
  });
  speech.push(input.greeting);
  await speech.finish();
  const interrupted = signal.aborted;
  const text = interrupted ? speech.spokenText() : input.greeting;
  input.send({ type: 'reply.done', turnId: 'greeting', text, interrupted });
  await speech.played();
}
