/**
 * Band-limited resampling of a phone call's audio, streamed: libsamplerate (Erik de Castro Lopo's
 * Secret Rabbit Code) as `@alexanderolsen/libsamplerate-js` builds it for JavaScript
 * (docs/telephony.md "Audio on a phone line").
 *
 * How that package behaves, measured rather than assumed:
 * - `create()` is async but its work is synchronous: every converter instantiates its own copy of the
 *   compiled module (wasm2js output: plain JavaScript over a 26 MB ArrayBuffer heap, mostly untouched
 *   pages) and decodes its filter tables, about 10-30 ms of CPU. Make converters when a call's stream
 *   starts, before its audio flows.
 * - A module instance holds one converter state (the C glue keeps a single `SRC_STATE`), so a
 *   converter is one instance; `destroy()` frees the state inside it, and the 26 MB heap goes when
 *   the instance is unreachable: dispose() lets go of it.
 * - `full()` is libsamplerate's streaming API (`src_process`, never end of input): the filter keeps
 *   its history between calls, so a stream cut into 20 ms chunks comes out as it would whole (the
 *   unit test checks sample for sample). `simple()` starts afresh each call and must not be used on
 *   a stream.
 */
import { ConverterType, create } from '@alexanderolsen/libsamplerate-js';

/**
 * SRC_SINC_MEDIUM_QUALITY: flat to 90% of the lower Nyquist, so the whole telephone band (300-3400 Hz)
 * passes at 8 kHz (3.4 kHz: -0.0 dB), and everything above 4 kHz is at least 100 dB down.
 * SRC_SINC_FASTEST costs about half as much but is already -8.8 dB at 3.4 kHz: the top of a band that
 * holds what a phone line keeps of the consonants. Either costs about 1% of a frame's 20 ms or less
 * (docs/telephony.md).
 */
export const PHONE_RESAMPLER_QUALITY = ConverterType.SRC_SINC_MEDIUM_QUALITY;
/** libsamplerate's rates: 1 Hz to 192 kHz. */
const MAX_SAMPLE_RATE = 192_000;
/** The filter's tail is pushed out with this much silence at a time (ms of input). */
const DRAIN_CHUNK_MS = 20;
/** More silence than any sinc filter here holds (its delay is a few ms): a drain stops there. */
const MAX_DRAIN_CHUNKS = 25;

type Converter = Awaited<ReturnType<typeof create>>;

/**
 * PCM16 mono from one rate to another through a sinc low-pass filter, chunk by chunk, with the
 * filter's state kept across chunks (no clicks at chunk edges). What comes out lags what went in by
 * the filter's delay; drain() pushes that tail out.
 */
export class SincResampler {
  private converter: Converter | undefined;
  /** Samples pushed, and made, since the converter started (or last drained). */
  private samplesIn = 0;
  private samplesOut = 0;

  private constructor(
    converter: Converter,
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    this.converter = converter;
  }

  /** A converter from `fromRate` to `toRate` Hz (integers, 1 to 192 000). */
  static async create(fromRate: number, toRate: number): Promise<SincResampler> {
    for (const rate of [fromRate, toRate]) {
      if (!Number.isInteger(rate) || rate < 1 || rate > MAX_SAMPLE_RATE) {
        throw new RangeError(`A sample rate is an integer from 1 to ${MAX_SAMPLE_RATE} Hz, not ${rate}`);
      }
    }
    const converter = await create(1, fromRate, toRate, { converterType: PHONE_RESAMPLER_QUALITY });
    return new SincResampler(converter, fromRate, toRate);
  }

  get disposed(): boolean {
    return this.converter === undefined;
  }

  /**
   * The next chunk of the stream in (any length: a long one goes through a second at a time, which
   * keeps the package's buffers small); what the filter has made of the stream so far, out.
   */
  push(pcm: Int16Array): Int16Array {
    const converter = this.live();
    const parts: Int16Array[] = [];
    for (let offset = 0; offset < pcm.length; offset += this.fromRate) {
      const chunk = pcm.subarray(offset, offset + this.fromRate);
      const out = converter.full(pcm16ToFloat32(chunk));
      this.samplesIn += chunk.length;
      this.samplesOut += out.length;
      parts.push(float32ToPcm16(out));
    }
    return parts.length === 1 ? parts[0] : joinPcm16(parts);
  }

  /**
   * The end of the stream (or of a stretch of it): silence is fed through until every sample pushed
   * has come out, exactly `round(samplesIn × toRate / fromRate)` of them in all; the filter then starts
   * afresh, as new.
   */
  drain(): Int16Array {
    const converter = this.live();
    const owed = Math.round((this.samplesIn * this.toRate) / this.fromRate) - this.samplesOut;
    const tail: Float32Array[] = [];
    let made = 0;
    const silence = new Float32Array(Math.max(1, Math.round((this.fromRate * DRAIN_CHUNK_MS) / 1000)));
    for (let chunk = 0; made < owed && chunk < MAX_DRAIN_CHUNKS; chunk++) {
      const out = converter.full(silence);
      tail.push(out);
      made += out.length;
    }
    const pcm = new Int16Array(Math.max(0, owed));
    let offset = 0;
    for (const out of tail) {
      const part = float32ToPcm16(out.subarray(0, pcm.length - offset));
      pcm.set(part, offset);
      offset += part.length;
    }
    this.reset();
    return pcm;
  }

  /** Forgets what the filter holds (the caller interrupted: the rest is not said); starts afresh. */
  reset(): void {
    const converter = this.live();
    // the package's documented way to start over: a new rate re-creates the converter state (src_delete,
    // then src_new) inside the same module instance, in microseconds
    converter.outputSampleRate = this.toRate;
    this.samplesIn = 0;
    this.samplesOut = 0;
  }

  /** Frees the converter (its state, and its module instance to the garbage collector). Idempotent. */
  dispose(): void {
    this.converter?.destroy();
    this.converter = undefined;
  }

  private live(): Converter {
    if (!this.converter) throw new Error('This resampler was disposed');
    return this.converter;
  }
}

/** PCM16 → libsamplerate's floats in [-1, 1). */
export function pcm16ToFloat32(pcm: Int16Array): Float32Array {
  const samples = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i] / 32_768;
  return samples;
}

/** Floats → PCM16, clipped (a sinc filter overshoots a little on a full-scale edge) and rounded. */
export function float32ToPcm16(samples: Float32Array): Int16Array {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    pcm[i] = Math.max(-32_768, Math.min(32_767, Math.round(samples[i] * 32_768)));
  }
  return pcm;
}

function joinPcm16(parts: Int16Array[]): Int16Array {
  const joined = new Int16Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
