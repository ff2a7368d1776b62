/**
 * Band-limited resampling of a phone call's audio, streamed: the Speex resampler (SpeexDSP's, the one
 * VoIP stacks such as FreeSWITCH and PulseAudio use), compiled to WebAssembly with SIMD by the
 * Echogarden project as `@echogarden/speex-resampler-wasm` (docs/telephony.md "Audio on a phone
 * line").
 *
 * How it is used here:
 * - One module instance per thread, loaded once: every converter is a resampler state and two
 *   small buffers in its heap (kilobytes), made in microseconds and freed by dispose().
 * - The package is an ES module; it is loaded with require (Node's require(esm)) from this CommonJS
 *   file. Jest, which cannot require an ES module without an experimental flag, compiles it to
 *   CommonJS with swc (jest.config.js).
 * - `speex_resampler_process_int` is a streaming API: the filter keeps its history between calls, so
 *   a stream cut into 20 ms chunks comes out as it would whole (the unit test checks sample for
 *   sample). The filter's leading zeros are skipped, so what comes out lags what went in by the
 *   filter's delay and drain() pushes that tail out.
 */

import { createRequire } from 'node:module';
import { concatSamples } from '../../common/pcm';

/**
 * Speex quality 7 (of 0-10): a Kaiser-windowed sinc with its cutoff at 93% of the lower Nyquist, so
 * the whole telephone band (300-3400 Hz) passes at 8 kHz, and about 100 dB of stopband. A 20 ms frame
 * costs about 13 µs (8 → 16 kHz) and 56 µs (22 050 Hz → 8 kHz) on the development machine, a tenth to
 * a quarter of what libsamplerate's medium sinc cost in JavaScript (docs/telephony.md).
 */
export const PHONE_RESAMPLER_QUALITY = 7;
/** The Speex resampler's rates, as libsamplerate's were: 1 Hz to 192 kHz. */
const MAX_SAMPLE_RATE = 192_000;
/** The filter's tail is pushed out with this much silence at a time (ms of input). */
const DRAIN_CHUNK_MS = 20;
/** More silence than any filter here holds (its delay is a few ms): a drain stops there. */
const MAX_DRAIN_CHUNKS = 25;
/** Input taken per call into the module (100 ms): the heap buffers stay small. */
const CHUNK_MS = 100;

/** The module's exports used here (the C API of speex_resampler.h, and the heap). */
interface SpeexModule {
  HEAP16: Int16Array;
  HEAPU32: Uint32Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  _speex_resampler_init(
    channels: number,
    inRate: number,
    outRate: number,
    quality: number,
    err: number,
  ): number;
  _speex_resampler_process_int(
    state: number,
    channel: number,
    input: number,
    inLength: number,
    output: number,
    outLength: number,
  ): number;
  _speex_resampler_skip_zeros(state: number): number;
  _speex_resampler_reset_mem(state: number): number;
  _speex_resampler_destroy(state: number): void;
}

let loading: Promise<SpeexModule> | undefined;
/** This thread's module instance, made on first use. */
function speexModule(): Promise<SpeexModule> {
  loading ??= (async () => {
    const load = createRequire(__filename);
    const { default: factory } = load('@echogarden/speex-resampler-wasm/simd') as {
      default: () => Promise<SpeexModule>;
    };
    return factory();
  })();
  return loading;
}

/** Where a converter lives in the module's heap. */
interface Converter {
  module: SpeexModule;
  state: number;
  /** One allocation: the input buffer, the output buffer, then the two lengths (u32). */
  block: number;
  input: number;
  inputCapacity: number;
  output: number;
  outputCapacity: number;
  inLength: number;
  outLength: number;
}

async function createConverter(fromRate: number, toRate: number): Promise<Converter> {
  const module = await speexModule();
  const inputCapacity = Math.max(1, Math.ceil((fromRate * CHUNK_MS) / 1000));
  const outputCapacity = Math.ceil((inputCapacity * toRate) / fromRate) + 64;
  const bytes = 2 * inputCapacity + 2 * outputCapacity + 12;
  const block = module._malloc(bytes + 4);
  if (!block) throw new Error('The resampler could not allocate its buffers');
  const error = block + bytes; // the init's error code
  const state = module._speex_resampler_init(1, fromRate, toRate, PHONE_RESAMPLER_QUALITY, error);
  if (!state) {
    module._free(block);
    throw new Error(`The resampler refused ${fromRate} → ${toRate} Hz`);
  }
  module._speex_resampler_skip_zeros(state);
  const output = block + 2 * inputCapacity;
  const lengths = (output + 2 * outputCapacity + 3) & ~3;
  return {
    module,
    state,
    block,
    input: block,
    inputCapacity,
    output,
    outputCapacity,
    inLength: lengths,
    outLength: lengths + 4,
  };
}

/** Runs `pcm` (at most the input capacity) through the filter; what it made, copied out of the heap. */
function resample(c: Converter, pcm: Int16Array): Int16Array {
  const made: Int16Array[] = [];
  let offset = 0;
  while (offset < pcm.length) {
    const { module } = c;
    const part = pcm.subarray(offset, offset + c.inputCapacity);
    module.HEAP16.set(part, c.input >> 1);
    module.HEAPU32[c.inLength >> 2] = part.length;
    module.HEAPU32[c.outLength >> 2] = c.outputCapacity;
    module._speex_resampler_process_int(c.state, 0, c.input, c.inLength, c.output, c.outLength);
    const consumed = module.HEAPU32[c.inLength >> 2];
    const produced = module.HEAPU32[c.outLength >> 2];
    const out = new Int16Array(produced);
    out.set(module.HEAP16.subarray(c.output >> 1, (c.output >> 1) + produced));
    made.push(out);
    if (consumed === 0 && produced === 0) throw new Error('The resampler made no progress');
    offset += consumed;
  }
  return made.length === 1 ? made[0] : concatSamples(made);
}

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
    return new SincResampler(await createConverter(fromRate, toRate), fromRate, toRate);
  }

  get disposed(): boolean {
    return this.converter === undefined;
  }

  /**
   * The next chunk of the stream in (any length: a long one goes through 100 ms at a time, which
   * keeps the heap's buffers small); what the filter has made of the stream so far, out.
   */
  push(pcm: Int16Array): Int16Array {
    const out = resample(this.live(), pcm);
    this.samplesIn += pcm.length;
    this.samplesOut += out.length;
    return out;
  }

  /**
   * The end of the stream (or of a stretch of it): silence is fed through until every sample pushed
   * has come out, exactly `round(samplesIn × toRate / fromRate)` of them in all; the filter then starts
   * afresh, as new.
   */
  drain(): Int16Array {
    const converter = this.live();
    const owed = Math.round((this.samplesIn * this.toRate) / this.fromRate) - this.samplesOut;
    const pcm = new Int16Array(Math.max(0, owed));
    const silence = new Int16Array(Math.max(1, Math.round((this.fromRate * DRAIN_CHUNK_MS) / 1000)));
    let made = 0;
    for (let chunk = 0; made < pcm.length && chunk < MAX_DRAIN_CHUNKS; chunk++) {
      const out = resample(converter, silence);
      const part = out.subarray(0, pcm.length - made);
      pcm.set(part, made);
      made += part.length;
    }
    this.reset();
    return pcm;
  }

  /** Forgets what the filter holds (the caller interrupted: the rest is not said); starts afresh. */
  reset(): void {
    const { module, state } = this.live();
    module._speex_resampler_reset_mem(state);
    module._speex_resampler_skip_zeros(state);
    this.samplesIn = 0;
    this.samplesOut = 0;
  }

  /** Frees the converter (its state and buffers in the module's heap). Idempotent. */
  dispose(): void {
    const converter = this.converter;
    if (!converter) return;
    converter.module._speex_resampler_destroy(converter.state);
    converter.module._free(converter.block);
    this.converter = undefined;
  }

  private live(): Converter {
    if (!this.converter) throw new Error('This resampler was disposed');
    return this.converter;
  }
}
