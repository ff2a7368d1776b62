/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import net from 'node:net';
import type { AppContext } from '../src/common/context';
import { createLogger } from '../src/logging/logger';
import type { SpeechToText } from '../src/outbound/transcription';
import { resamplePcm16 } from '../src/outbound/wav';
import { CallerAudio } from '../src/sessions/stream/caller-audio';
import { speakWithEspeak } from './support/espeak-speech';

const SILENCE_MS = 300;
/** 20 ms of PCM16 at 16 kHz. */
const FRAME_BYTES = 640;

/** Blocks the event loop for `ms`, as a long garbage collection or a busy neighbour on the loop does. */
function stallEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

const asBytes = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

/**
 * The caller's audio ends an utterance when no frame arrives for VAD_SILENCE_MS (a client that
 * stopped sending). A stalled event loop is not such a client: the frames that arrived while it was
 * stalled are read before the utterance is ended, so one utterance stays one turn (a phone call once
 * heard "Where is my parcel?" as two turns after the loop stalled mid-sentence).
 */
describe('caller audio across a stalled event loop', () => {
  it('keeps one utterance one when frames arrived while the loop was stalled', async () => {
    const speech = await speakWithEspeak('Where is my parcel? I ordered it last week.');
    const pcm = resamplePcm16(speech.pcm16, speech.sampleRate, 16_000);
    const ctx = {
      config: { vad: { silenceMs: SILENCE_MS } },
      logger: createLogger('silent', 'test'),
    } as unknown as AppContext;
    const speechToText: SpeechToText = { transcribe: async () => ({ text: 'heard' }) };
    const utterances: string[] = [];
    const audio = new CallerAudio(
      ctx,
      { sessionId: 'sess_stall', recording: false, speechToText },
      {
        send: () => undefined,
        error: () => undefined,
        isAgentSpeaking: () => false,
        isBackchannel: () => false,
        interrupt: () => undefined,
        utterance: (text) => utterances.push(text),
      },
    );
    // the caller's frames come over a socket, as a stream's do
    let received = 0;
    let pending = Buffer.alloc(0);
    const server = net.createServer((socket) =>
      socket.on('data', (data) => {
        received += data.length;
        pending = Buffer.concat([pending, data]);
        while (pending.length >= FRAME_BYTES) {
          audio.push(Buffer.from(pending.subarray(0, FRAME_BYTES)));
          pending = pending.subarray(FRAME_BYTES);
        }
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const client = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    try {
      const bytes = asBytes(pcm);
      const half = Math.floor(bytes.length / 2 / FRAME_BYTES) * FRAME_BYTES;
      client.write(bytes.subarray(0, half));
      while (received < half) await new Promise((resolve) => setTimeout(resolve, 5));
      // the rest of the sentence and a second of silence arrive while the loop is stalled
      // (stalled after the loop's I/O, as a long garbage collection in a frame's handler stalls it)
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          client.write(Buffer.concat([bytes.subarray(half), Buffer.alloc(32_000)]));
          stallEventLoop(SILENCE_MS + 400);
          resolve();
        }),
      );
      const deadline = performance.now() + 10_000;
      while (utterances.length === 0 && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, SILENCE_MS * 3));
      expect(utterances).toEqual(['heard']);
    } finally {
      client.destroy();
      server.close();
      await audio.close();
    }
  }, 30_000);
});
