import type { SpeechPcmStream } from '../src/common/speech';
import type { ServerMessage } from '../src/sessions/stream/protocol';
import { ServerMessage as ServerMessageSchema } from '../src/sessions/stream/protocol';
import { ReplySpeech } from '../src/sessions/stream/reply-speech';
import { wholeSpeechStream } from '../src/voices';

const RATE = 22_050;
const never = new AbortController().signal;

/** A voice that streams: each chunk is given when the test pushes it; `end` ends it. */
function streamingVoice() {
  const chunks: Int16Array[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake = () => {};
  const stream: SpeechPcmStream = {
    sampleRate: RATE,
    async *chunks() {
      for (let next = 0; ; ) {
        if (next < chunks.length) yield chunks[next++]!;
        else if (failure) throw failure;
        else if (ended) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
  return {
    stream,
    push: (samples: number) => {
      chunks.push(new Int16Array(samples).fill(1000));
      wake();
    },
    end: () => {
      ended = true;
      wake();
    },
    fail: (error: Error) => {
      failure = error;
      wake();
    },
  };
}

function reply(synthesize: (text: string) => Promise<SpeechPcmStream | undefined>, signal = never) {
  const messages: ServerMessage[] = [];
  const frames: Uint8Array[] = [];
  const errors: unknown[] = [];
  const speech = new ReplySpeech({
    turnId: 'turn_1',
    voiceId: 'prov_x/m/v',
    synthesize: (_voice, text) => synthesize(text),
    send: (m) => messages.push(ServerMessageSchema.parse(m)),
    sendAudio: (f) => frames.push(f.slice()),
    signal,
    onError: (e) => errors.push(e),
  });
  return { speech, messages, frames, errors };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('a reply spoken in a voice that streams', () => {
  it('sends a segment’s header and first audio as soon as its first samples come, before the rest', async () => {
    const voice = streamingVoice();
    const { speech, messages, frames } = reply(async () => voice.stream);
    speech.push('Your order shipped on Monday. ');
    const finished = speech.finish();
    await tick();
    expect(messages).toEqual([]);
    voice.push(2048);
    await tick();
    expect(messages).toEqual([expect.objectContaining({ type: 'reply.audio', segment: 0, bytes: null })]);
    expect(frames.map((f) => f.byteLength)).toEqual([4096]);
    voice.push(1024);
    voice.end();
    await finished;
    expect(messages.at(-1)).toEqual({ type: 'reply.audio.done', turnId: 'turn_1', segment: 0, bytes: 6144 });
    expect(frames.map((f) => f.byteLength)).toEqual([4096, 2048]);
    // the recording has every sample, once
    expect(speech.audio()?.pcm.length).toBe(3072);
  });

  it('keeps segments in order: a later one made first waits, then goes out whole', async () => {
    const first = streamingVoice();
    const second = streamingVoice();
    const { speech, messages } = reply(async (text) =>
      text === 'One moment.' ? first.stream : second.stream,
    );
    speech.hold('One moment.');
    speech.hold('Still looking.');
    const finished = speech.finish();
    second.push(100);
    second.end();
    await tick();
    expect(messages).toEqual([]);
    first.push(100);
    first.end();
    await finished;
    expect(
      messages.map((m) =>
        m.type === 'reply.audio' || m.type === 'reply.audio.done' ? [m.type, m.segment] : m.type,
      ),
    ).toEqual([
      ['reply.audio', 0],
      ['reply.audio.done', 0],
      ['reply.audio', 1],
      ['reply.audio.done', 1],
    ]);
  });

  it('ends a segment whose speech failed part-way with what came, and says the failure', async () => {
    const voice = streamingVoice();
    const { speech, messages, errors } = reply(async () => voice.stream);
    speech.push('This will break. ');
    const finished = speech.finish();
    voice.push(500);
    await tick();
    voice.fail(new Error('provider went away'));
    await finished;
    expect(messages.at(-1)).toEqual({ type: 'reply.audio.done', turnId: 'turn_1', segment: 0, bytes: 1000 });
    expect(errors).toEqual([new Error('provider went away')]);
  });

  it('announces the bytes of speech that was whole before it was sent', async () => {
    const { speech, messages } = reply(async () =>
      wholeSpeechStream({ pcm: new Int16Array(300), sampleRate: RATE }),
    );
    speech.push('Hello there. ');
    await speech.finish();
    expect(messages).toEqual([
      expect.objectContaining({ type: 'reply.audio', bytes: 600 }),
      { type: 'reply.audio.done', turnId: 'turn_1', segment: 0, bytes: 600 },
    ]);
  });

  it('sends nothing more once interrupted, not even the segment’s end', async () => {
    const voice = streamingVoice();
    const stop = new AbortController();
    const { speech, messages, frames } = reply(async () => voice.stream, stop.signal);
    speech.push('A long answer that is cut. ');
    const finished = speech.finish();
    voice.push(500);
    await tick();
    stop.abort();
    voice.push(500);
    voice.end();
    await finished;
    expect(messages.map((m) => m.type)).toEqual(['reply.audio']);
    expect(frames).toHaveLength(1);
  });
});
