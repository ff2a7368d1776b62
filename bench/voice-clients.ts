/**
 * The callers of bench:voice: live calls on the platform's stream (the project's own client on the
 * `ws` package), each turn timed from the client's end of input to its first reply audio byte.
 */
import WebSocket from 'ws';
import { streamChatCompletion } from '../src/outbound/model-stream';
import { ServerMessage } from '../src/sessions/stream/protocol';
import { VoiceStreamClient, type WebSocketLike } from '../src/sessions/stream/voice-stream-client';
import { SpeechSegmenter } from '../src/voices/segmenter';

export interface TimedTurn {
  /** End of input (text sent, or the utterance's last audio frame) → first reply audio byte. */
  firstAudioMs: number;
  /** `interrupt` sent → the last reply audio frame received (0 if none came after it). */
  bargeInMs?: number;
  /** Reply audio frames that arrived after their playback time (played from the first frame on). */
  lateFrames: number;
  /** The latest a frame was, past its playback time (ms, 0 when none was late). */
  worstLateMs: number;
  frames: number;
}

export async function openCall(base: string, sessionId: string, key: string): Promise<VoiceStreamClient> {
  const client = await VoiceStreamClient.open({
    url: `${base.replace(/^http/, 'ws')}/api/v2/developers/sessions/${sessionId}/stream`,
    check: (message) => ServerMessage.parse(message),
    connect: (url) =>
      new WebSocket(url, { headers: { authorization: `Bearer ${key}` } }) as unknown as WebSocketLike,
  });
  await client.next('session.ready');
  await client.next('reply.done', (m) => m.turnId === 'greeting');
  return client;
}

/**
 * One turn on a call: `sendInput` ends the caller's input (and answers when it did); with
 * `interruptAfterMs`, the caller interrupts that long after the first audio. Frames are checked
 * against a player that starts at the first frame and plays without a gap.
 */
export async function timedTurn(
  client: VoiceStreamClient,
  sendInput: () => Promise<void> | void,
  opts: { interruptAfterMs?: number; endOfInputAfterMs?: number } = {},
): Promise<TimedTurn> {
  const timing = { inputEndedAt: 0, firstAt: 0, interruptedAt: 0, lastFrameAt: 0, samples: 0 };
  const result: TimedTurn = { firstAudioMs: 0, lateFrames: 0, worstLateMs: 0, frames: 0 };
  const errors: ServerMessage[] = [];
  const stopErrors = client.on((m) => {
    if (m.type !== 'error') return;
    errors.push(m);
    process.stderr.write(`bench:voice: stream error ${m.code}: ${m.message}\n`);
  });
  const stopAudio = client.onAudio((pcm, format, turnId) => {
    if (turnId === 'greeting') return;
    const now = performance.now();
    if (!timing.firstAt) timing.firstAt = now;
    const due = timing.firstAt + (timing.samples / format.sampleRate) * 1000;
    if (now > due + 1) {
      result.lateFrames++;
      result.worstLateMs = Math.max(result.worstLateMs, now - due);
    }
    timing.samples += pcm.length;
    timing.lastFrameAt = now;
    result.frames++;
  });
  try {
    await sendInput();
    // speech input ends when the silence after it is due to end the utterance (VAD_SILENCE_MS)
    timing.inputEndedAt = performance.now() + (opts.endOfInputAfterMs ?? 0);
    const recorded = client.next('turn.recorded', undefined, 60_000);
    recorded.catch(() => undefined); // awaited below
    if (opts.interruptAfterMs !== undefined) {
      await client
        .next('reply.audio', (m) => m.turnId !== 'greeting', 60_000)
        .catch((error) => {
          const tail = client.received.slice(-8).map((m) => m.type);
          throw new Error(`${(error as Error).message}; the last messages: ${tail.join(', ')}`);
        });
      await waitFor(() => timing.firstAt > 0);
      await new Promise((r) => setTimeout(r, opts.interruptAfterMs));
      timing.interruptedAt = performance.now();
      client.interrupt();
    }
    await recorded.catch((error) => {
      const tail = client.received.slice(-8).map((m) => m.type);
      throw new Error(`${(error as Error).message}; the last messages: ${tail.join(', ')}`);
    });
    if (errors.length) throw new Error(`stream errors: ${JSON.stringify(errors)}`);
    result.firstAudioMs = timing.firstAt - timing.inputEndedAt;
    if (timing.interruptedAt) result.bargeInMs = Math.max(0, timing.lastFrameAt - timing.interruptedAt);
    return result;
  } finally {
    stopErrors();
    stopAudio();
  }
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 1));
}

/** Caller audio at `speed` × real time in 20 ms frames; answers when the last frame is sent. */
export async function sendSpeech(client: VoiceStreamClient, pcm: Int16Array, speed: number): Promise<void> {
  const frame = 320;
  const started = performance.now();
  for (let i = 0, n = 0; i < pcm.length; i += frame, n++) {
    const wait = started + (n * 20) / speed - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    client.sendAudio(pcm.slice(i, i + frame));
  }
}

/** The model's time to its first speakable segment, streamed from the double directly (the floor). */
export async function firstSegment(llmBase: string): Promise<{ elapsed: number; text: string }> {
  const t0 = performance.now();
  const segmenter = new SpeechSegmenter();
  const controller = new AbortController();
  for await (const event of streamChatCompletion({
    url: `${llmBase}/chat/completions`,
    headers: {},
    body: { model: 'm', messages: [{ role: 'user', content: 'Where is my order?' }] },
    signal: controller.signal,
  })) {
    const segment = event.type === 'delta' ? segmenter.push(event.text)[0] : segmenter.flush()[0];
    if (segment) {
      controller.abort();
      return { elapsed: performance.now() - t0, text: segment };
    }
  }
  throw new Error('the model said nothing');
}
