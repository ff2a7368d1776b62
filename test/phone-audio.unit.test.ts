import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CALLER_AUDIO } from '../src/sessions/stream/protocol';
import {
  decodeMulaw,
  ENGINE_CALLER_RATE,
  encodeMulaw,
  InboundPhoneAudio,
  MULAW_SILENCE,
  OutboundPhoneAudio,
  PHONE_FRAME_BYTES,
  pcm16Bytes,
  SincResampler,
} from '../src/telephony/audio';

/** `seconds` of sine tones (Hz → amplitude) at `rate`, as PCM16. */
function tones(rate: number, seconds: number, parts: Record<number, number>): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(
      Object.entries(parts).reduce((x, [hz, a]) => x + a * Math.sin((2 * Math.PI * +hz * i) / rate), 0),
    ),
  );
}

/** The amplitude of the `hz` component of `samples` (Goertzel's single DFT bin), from sample `from` on. */
function amplitudeAt(samples: ArrayLike<number>, hz: number, rate: number, from = 0): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / rate);
  let s1 = 0;
  let s2 = 0;
  for (let i = from; i < samples.length; i++) {
    const s = samples[i] + coefficient * s1 - s2;
    s2 = s1;
    s1 = s;
  }
  const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
  return (2 * Math.sqrt(Math.max(0, power))) / (samples.length - from);
}

const decibels = (amplitude: number, reference: number) => 20 * Math.log10(amplitude / reference);

/** `pcm` cut into consecutive chunks of `size` samples (the last one shorter). */
const chunks = <T extends Int16Array | Uint8Array>(pcm: T, size: number): T[] =>
  Array.from({ length: Math.ceil(pcm.length / size) }, (_, k) => pcm.subarray(k * size, (k + 1) * size) as T);

const concat = (parts: Int16Array[]) => Int16Array.from(parts.flatMap((part) => Array.from(part)));

/** The largest |x[n+1] − 2x[n] + x[n−1]| from sample `from` on: a click at a chunk edge shows here. */
function largestSecondDifference(pcm: Int16Array, from: number): number {
  let largest = 0;
  for (let i = Math.max(1, from); i < pcm.length - 1; i++)
    largest = Math.max(largest, Math.abs(pcm[i + 1] - 2 * pcm[i] + pcm[i - 1]));
  return largest;
}

describe("a phone line's audio (src/telephony/audio)", () => {
  it("μ-law: every sample, and a 1 kHz tone, survive a G.711 round trip within the codec's quantization error", () => {
    // every 16-bit value comes back within half a step of its μ-law segment (a step is 2^(segment + 3)
    // of the biased magnitude; beyond 32 635 − 132 the encoder clips)
    const every = Int16Array.from({ length: 65_536 }, (_, i) => i - 32_768);
    const back = decodeMulaw(encodeMulaw(every));
    const beyondHalfStep = every.filter((x, i) => {
      const biased = Math.abs(x) + 132;
      const segment = Math.max(0, Math.floor(Math.log2(Math.min(biased, 32_635) >> 7)));
      const clipped = Math.max(0, biased - 32_635);
      return Math.abs(back[i] - x) > 2 ** (segment + 2) + clipped;
    });
    expect(beyondHalfStep).toHaveLength(0);
    // a tone keeps G.711's signal to quantization noise ratio (about 36 dB at −10 dBFS)
    const tone = Int16Array.from({ length: 8000 }, (_, i) =>
      Math.round(10_000 * Math.sin(2 * Math.PI * (i / 8 + 0.05))),
    );
    const heard = decodeMulaw(encodeMulaw(tone));
    let signal = 0;
    let noise = 0;
    for (let i = 0; i < tone.length; i++) {
      signal += tone[i] ** 2;
      noise += (heard[i] - tone[i]) ** 2;
    }
    expect(10 * Math.log10(signal / noise)).toBeGreaterThan(35);
    expect(encodeMulaw(new Int16Array(160)).every((b) => b === MULAW_SILENCE)).toBe(true);
  });

  it("upsampling 8 kHz → 16 kHz keeps a 1 kHz tone's frequency and level, and adds no image above 4 kHz", async () => {
    const inbound = await InboundPhoneAudio.create();
    const line = encodeMulaw(tones(8000, 1, { 1000: 8000 }));
    const frames = chunks(line, PHONE_FRAME_BYTES).map((frame) => inbound.push(frame));
    inbound.dispose();
    // every frame after the first (which gives less by the filter's delay, 8 ms at most) is 20 ms at 16 kHz
    expect(frames.slice(1).every((pcm) => pcm.length === 320)).toBe(true);
    expect(frames[0].length).toBeGreaterThanOrEqual(320 - 128);
    const heard = concat(frames);
    const steady = 1600; // skip the first 100 ms
    expect(Math.abs(decibels(amplitudeAt(heard, 1000, 16_000, steady), 8000))).toBeLessThan(0.5);
    let loudest = 0;
    for (let hz = 900; hz <= 1100; hz += 5) {
      if (amplitudeAt(heard, hz, 16_000, steady) > amplitudeAt(heard, loudest, 16_000, steady)) loudest = hz;
    }
    expect(loudest).toBe(1000);
    // a resampler without a real low-pass filter leaves the 7 kHz image (8 − 1) of the tone
    expect(decibels(amplitudeAt(heard, 7000, 16_000, steady), 8000)).toBeLessThan(-60);
  });

  it.each([24_000, 22_050])(
    'downsampling %i Hz → 8 kHz removes a 6 kHz tone (no 2 kHz alias) and passes 1 kHz within 1 dB',
    async (rate) => {
      const steady = 800; // skip the first 100 ms at 8 kHz
      const through = async (pcm: Int16Array) => {
        const outbound = await OutboundPhoneAudio.create(rate);
        const frames = chunks(pcm, rate / 50).flatMap((chunk) => outbound.push(chunk));
        frames.push(...outbound.flush());
        outbound.dispose();
        return decodeMulaw(Buffer.concat(frames));
      };
      const high = await through(tones(rate, 1, { 6000: 16_000 }));
      expect(decibels(amplitudeAt(high, 2000, 8000, steady), 16_000)).toBeLessThan(-40);
      const low = await through(tones(rate, 1, { 1000: 16_000 }));
      expect(Math.abs(decibels(amplitudeAt(low, 1000, 8000, steady), 16_000))).toBeLessThan(1);

      // the check works: keeping every third sample of 24 kHz folds 6 kHz onto 2 kHz at full level
      if (rate === 24_000) {
        const sixKHz = tones(rate, 1, { 6000: 16_000 });
        const decimated = Int16Array.from({ length: sixKHz.length / 3 }, (_, i) => sixKHz[i * 3]);
        expect(Math.abs(decibels(amplitudeAt(decimated, 2000, 8000), 16_000))).toBeLessThan(1);
      }
    },
  );

  it('cuts μ-law into exact 160-byte frames, carrying the remainder across pushes; flush pads with silence', async () => {
    const speech = tones(22_050, 1.003, { 440: 6000, 1900: 3000 });
    const outbound = await OutboundPhoneAudio.create(22_050);
    const frames: Buffer[] = [];
    const sizes = [1, 37, 441, 1000, 5, 2000, 160];
    for (let i = 0, k = 0; i < speech.length; i += sizes[k++ % sizes.length]) {
      frames.push(...outbound.push(speech.subarray(i, i + sizes[k % sizes.length])));
      expect(outbound.heldBytes).toBeLessThan(PHONE_FRAME_BYTES);
    }
    frames.push(...outbound.flush());
    expect(outbound.heldBytes).toBe(0);
    expect(frames.every((frame) => frame.length === PHONE_FRAME_BYTES)).toBe(true);
    const samples = Math.round((speech.length * 8000) / 22_050);
    expect(frames.length).toBe(Math.ceil(samples / PHONE_FRAME_BYTES));
    const bytes = Buffer.concat(frames);
    expect(bytes.subarray(samples).every((b) => b === MULAW_SILENCE)).toBe(true);

    // the same audio pushed whole gives the same bytes: chunking changes nothing
    const whole = await OutboundPhoneAudio.create(22_050);
    const once = Buffer.concat([...whole.push(speech), ...whole.flush()]);
    expect(once.equals(bytes)).toBe(true);
    // after a flush the converter starts afresh: the same audio again gives the same frames
    expect(Buffer.concat([...whole.push(speech), ...whole.flush()]).equals(bytes)).toBe(true);
    whole.dispose();
    outbound.dispose();
  });

  it.each([
    [8000, 16_000],
    [22_050, 8000],
    [24_000, 8000],
  ])('a continuous sine cut into 20 ms chunks comes out continuous (%i → %i Hz)', async (from, to) => {
    const sine = tones(from, 2.5, { 1000: 12_000 }); // pushed whole, it goes through in 1 s pieces
    const run = async (resetEachChunk: boolean) => {
      const resampler = await SincResampler.create(from, to);
      const out = chunks(sine, from / 50).map((chunk) => {
        if (resetEachChunk) resampler.reset();
        return resampler.push(chunk);
      });
      resampler.dispose();
      return concat(out);
    };
    const streamed = await run(false);
    const whole = await SincResampler.create(from, to);
    const once = whole.push(sine);
    whole.dispose();
    // sample for sample what the whole signal gives: the filter's state carries across chunks
    expect(streamed.length).toBe(once.length);
    expect(streamed.every((x, i) => x === once[i])).toBe(true);
    // and no spike: the sine's own second difference is 12 000 × (2 − 2 cos(2π · 1000 / rate))
    const smooth = 12_000 * (2 - 2 * Math.cos((2 * Math.PI * 1000) / to));
    expect(largestSecondDifference(streamed, to / 10)).toBeLessThan(smooth * 1.02 + 2);
    // the check works: a filter that forgets its state at each chunk clicks at every edge (the same
    // input and filter each run: the margin is fixed, not noise)
    expect(largestSecondDifference(await run(true), to / 10)).toBeGreaterThan(smooth * 1.05);
  });

  it('a 20 ms μ-law frame at a time gives what the whole call would (the caller side)', async () => {
    const line = encodeMulaw(tones(8000, 1, { 300: 5000, 2500: 4000 }));
    const framed = await InboundPhoneAudio.create();
    const streamed = concat([
      ...chunks(line, PHONE_FRAME_BYTES).map((f) => framed.pushBase64(Buffer.from(f).toString('base64'))),
      framed.flush(),
    ]);
    const whole = await InboundPhoneAudio.create();
    const once = concat([whole.push(line), whole.flush()]);
    expect(streamed.length).toBe(16_000);
    expect(streamed.every((x, i) => x === once[i])).toBe(true);
    // as the engine takes it (CALLER_AUDIO): PCM16 little-endian bytes at its rate
    expect(ENGINE_CALLER_RATE).toBe(CALLER_AUDIO.sampleRate);
    const bytes = pcm16Bytes(streamed);
    expect(bytes.length).toBe(32_000);
    expect([0, 1234, 15_999].map((i) => bytes.readInt16LE(i * 2))).toEqual(
      [0, 1234, 15_999].map((i) => streamed[i]),
    );
    framed.dispose();
    whole.dispose();
  });

  it('silence in gives μ-law silence out; μ-law silence in gives zeros; clear() drops the held tail', async () => {
    const outbound = await OutboundPhoneAudio.create(22_050);
    const out = Buffer.concat([...outbound.push(new Int16Array(22_050)), ...outbound.flush()]);
    expect(out.length).toBe(8000);
    expect(out.every((b) => b === MULAW_SILENCE)).toBe(true);

    // a reply cut off by the caller: what was held is dropped, nothing of it leaks into the next
    outbound.push(tones(22_050, 0.05, { 1000: 10_000 }));
    expect(outbound.heldBytes).toBeGreaterThan(0);
    outbound.clear();
    expect(outbound.heldBytes).toBe(0);
    const next = Buffer.concat([...outbound.push(new Int16Array(2205)), ...outbound.flush()]);
    expect(next.every((b) => b === MULAW_SILENCE)).toBe(true);
    outbound.dispose();

    const inbound = await InboundPhoneAudio.create();
    const heard = concat([inbound.push(new Uint8Array(1600).fill(MULAW_SILENCE)), inbound.flush()]);
    expect(heard.length).toBe(3200);
    expect(heard.every((x) => x === 0)).toBe(true);
    inbound.dispose();
  });

  it.each([8000, 16_000, 22_050, 24_000, 44_100, 48_000])(
    'a second of reply audio at %i Hz is exactly 50 frames',
    async (rate) => {
      const outbound = await OutboundPhoneAudio.create(rate);
      const frames = chunks(tones(rate, 1, { 800: 8000 }), rate / 100).flatMap((c) => outbound.push(c));
      frames.push(...outbound.flush());
      expect(frames.length).toBe(50);
      expect(outbound.sampleRate).toBe(rate);
      outbound.dispose();
    },
  );

  it('refuses a rate the resampler has not, and use after dispose()', async () => {
    await expect(OutboundPhoneAudio.create(0)).rejects.toThrow(RangeError);
    await expect(OutboundPhoneAudio.create(22_050.5)).rejects.toThrow(RangeError);
    const inbound = await InboundPhoneAudio.create();
    inbound.dispose();
    inbound.dispose(); // idempotent
    expect(() => inbound.push(new Uint8Array(160))).toThrow(/disposed/);
  });

  it('200 calls at once: their converters share one small heap, and give their room back', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const settled = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
      return process.memoryUsage().arrayBuffers;
    };
    const MB = 1024 * 1024;
    const before = await settled();
    /** 200 calls' converters held at once, then disposed: what they took, at their peak. */
    const calls = async () => {
      const held = await Promise.all(Array.from({ length: 200 }, () => InboundPhoneAudio.create()));
      for (const inbound of held) inbound.push(new Uint8Array(PHONE_FRAME_BYTES).fill(MULAW_SILENCE));
      const took = (await settled()) - before;
      for (const inbound of held) inbound.dispose();
      return took;
    };
    const first = await calls();
    // a converter is a resampler state and two buffers in the shared heap: kilobytes, not a heap of its own
    expect(first).toBeLessThan(20 * MB);
    // disposed converters give their room back: the same calls again take no more (within what other
    // buffers of the process move meanwhile: bytes; 200 converters kept would be hundreds of KB)
    const NOISE = 64 * 1024;
    for (let round = 0; round < 3; round++) expect(await calls()).toBeLessThanOrEqual(first + NOISE);
  });

  it('prints the cost of a 20 ms frame each way (a figure, not a check)', async () => {
    const started = process.hrtime.bigint();
    const inbound = await InboundPhoneAudio.create();
    const outbound = await OutboundPhoneAudio.create(22_050);
    const createMs = Number(process.hrtime.bigint() - started) / 1e6 / 2;
    const line = chunks(encodeMulaw(tones(8000, 10, { 1000: 8000 })), PHONE_FRAME_BYTES);
    const reply = chunks(tones(22_050, 10, { 1000: 8000 }), 441);
    const microsecondsPerFrame = <T>(frames: T[], push: (frame: T) => unknown) => {
      const from = process.hrtime.bigint();
      for (const frame of frames) push(frame);
      return Number(process.hrtime.bigint() - from) / 1000 / frames.length;
    };
    // the first 5 s warm the compiler up; the last 5 s are timed
    microsecondsPerFrame(line.slice(0, 250), (frame) => inbound.push(frame));
    microsecondsPerFrame(reply.slice(0, 250), (chunk) => outbound.push(chunk));
    const inUs = microsecondsPerFrame(line.slice(250), (frame) => inbound.push(frame));
    const outUs = microsecondsPerFrame(reply.slice(250), (chunk) => outbound.push(chunk));
    console.log(
      `phone audio, per 20 ms frame: μ-law 8 kHz → PCM16 16 kHz ${inUs.toFixed(0)} µs; ` +
        `PCM16 22 050 Hz → μ-law 8 kHz ${outUs.toFixed(0)} µs; a converter made in ${createMs.toFixed(1)} ms`,
    );
    inbound.dispose();
    outbound.dispose();
  });
});
