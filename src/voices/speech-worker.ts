import fs from 'node:fs';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { createMp3Encoder } from 'wasm-media-encoders';
import { MP3_KBPS, type SynthesisJob, type WorkerJob, type WorkerMessage } from './speech-protocol';

/**
 * A speech worker thread: one eSpeak NG engine (WebAssembly) and one MP3 encoder, used by one job at a
 * time. A job speaks text (answering MP3, or the raw samples) or encodes samples as MP3. The voice, rate and pitch are engine state, so every job sets all three before it speaks, and
 * jobs never interleave: the thread handles one message to completion before the next.
 */

interface EspeakEngine {
  /** 0 on success; 2 for an unknown voice, in which case the previous voice silently stays. */
  set_voice(name: string): number;
  set_rate(wordsPerMinute: number): void;
  set_pitch(pitch: number): void;
  get_samplerate(): number;
  /** Calls back with each chunk of 16-bit samples; a truthy return aborts. */
  synthesize(text: string, onChunk: (samples: Int16Array, events: unknown[]) => number): void;
}

interface EspeakModule {
  eSpeakNGWorker: new () => EspeakEngine;
  /** Emscripten's in-memory file system holding espeak-ng-data. */
  FS: { stat(path: string): unknown };
}

/** Where the engine's voice variants are; `set_voice` ignores a `+variant` it cannot find, so we look first. */
const VARIANTS_DIR = '/usr/share/espeak-ng-data/voices/!v';

const port = parentPort;
if (!port) throw new Error('speech-worker must run in a worker thread');

async function loadEngine(): Promise<{ engine: EspeakEngine; hasVariant(name: string): boolean }> {
  // an ES module: loaded with a native import() from this CommonJS file (a variable keeps tsc from typing it)
  const specifier = '@echogarden/espeak-ng-emscripten';
  const { default: factory } = (await import(specifier)) as {
    default: (options?: object) => Promise<EspeakModule>;
  };
  const module = await factory();
  const known = new Map<string, boolean>();
  const hasVariant = (name: string) => {
    let found = known.get(name);
    if (found === undefined) {
      try {
        module.FS.stat(`${VARIANTS_DIR}/${name}`);
        found = true;
      } catch {
        found = false;
      }
      known.set(name, found);
    }
    return found;
  };
  return { engine: new module.eSpeakNGWorker(), hasVariant };
}

type Engine = Awaited<ReturnType<typeof loadEngine>>;
type Encoder = Awaited<ReturnType<typeof createMp3Encoder>>;

/** Sets the job's voice, rate and pitch, refusing an unknown voice or variant. */
function setVoice({ engine, hasVariant }: Engine, job: SynthesisJob): void {
  const variant = job.engineVoice.split('+')[1];
  if (variant !== undefined && !/^[A-Za-z0-9 _-]+$/.test(variant))
    throw new Error(`bad voice variant ${variant}`);
  if (variant !== undefined && !hasVariant(variant))
    throw new Error(`eSpeak NG has no voice variant ${variant}`);
  // an unknown voice answers 2 and leaves the previous voice in place: never speak with it
  const status = engine.set_voice(job.engineVoice);
  if (status !== 0)
    throw new Error(`eSpeak NG has no voice ${job.engineVoice} (set_voice answered ${status})`);
  engine.set_rate(job.rate);
  engine.set_pitch(job.pitch);
}

/** All of `parts`, end to end, in `into` (sized to fit). */
function joinInto<T extends Uint8Array | Int16Array>(parts: T[], into: T): T {
  let offset = 0;
  for (const part of parts) {
    (into as Uint8Array).set(part as Uint8Array, offset);
    offset += part.length;
  }
  return into;
}

const totalLength = (parts: ArrayLike<unknown>[]) => parts.reduce((n, p) => n + p.length, 0);

/** The job's text spoken in its voice: every sample the engine produced, in one array of its own. */
function speak(engine: Engine, job: SynthesisJob): Int16Array {
  setVoice(engine, job);
  const parts: Int16Array[] = [];
  engine.engine.synthesize(job.text, (chunk) => {
    if (chunk.length > 0) parts.push(chunk.slice()); // the chunk may be a view of the engine's memory
    return 0;
  });
  return joinInto(parts, new Int16Array(totalLength(parts)));
}

/** Rates an MP3 stream can have; the encoder keeps the input's rate instead of resampling. */
const MP3_SAMPLE_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const;
/** Samples handed to the encoder at a time, so its memory stays small whatever the length. */
const ENCODE_BLOCK = 16_384;

/** 16-bit mono samples as an MP3 file at MP3_KBPS and the same sample rate. */
function encodeMp3(encoder: Encoder, pcm: Int16Array, sampleRate: number): Uint8Array {
  const outputSampleRate = MP3_SAMPLE_RATES.find((rate) => rate === sampleRate);
  if (!outputSampleRate) throw new Error(`MP3 has no sample rate of ${sampleRate} Hz`);
  encoder.configure({ channels: 1, sampleRate, bitrate: MP3_KBPS, outputSampleRate });
  const parts: Uint8Array[] = [];
  for (let start = 0; start < pcm.length; start += ENCODE_BLOCK) {
    const block = pcm.subarray(start, start + ENCODE_BLOCK);
    const floats = new Float32Array(block.length);
    for (let i = 0; i < block.length; i++) floats[i] = block[i] / 32768;
    parts.push(encoder.encode([floats]).slice()); // the encoder owns its output buffer: copy it
  }
  parts.push(encoder.finalize().slice());
  return joinInto(parts, new Uint8Array(totalLength(parts)));
}

/** Runs one job; the answer's audio buffer is transferred to the pool, not copied. */
function run(
  engine: Engine,
  encoder: Encoder,
  job: WorkerJob,
): { reply: WorkerMessage; transfer: ArrayBuffer[] } {
  const started = performance.now();
  const mp3Answer = (pcm: Int16Array, sampleRate: number) => {
    const mp3 = encodeMp3(encoder, pcm, sampleRate);
    const synthMs = performance.now() - started;
    const reply: WorkerMessage = { type: 'done', id: job.id, mp3, samples: pcm.length, sampleRate, synthMs };
    return { reply, transfer: [mp3.buffer as ArrayBuffer] };
  };
  if (job.type === 'encode') return mp3Answer(job.pcm, job.sampleRate);
  const pcm = speak(engine, job);
  const sampleRate = engine.engine.get_samplerate();
  if (job.output !== 'pcm') return mp3Answer(pcm, sampleRate);
  const synthMs = performance.now() - started;
  return {
    reply: { type: 'pcm', id: job.id, pcm, sampleRate, synthMs },
    transfer: [pcm.buffer as ArrayBuffer],
  };
}

/**
 * Runs this thread below the event loop's priority (nice 10) where the OS allows it: on Linux,
 * `/proc/thread-self` names this thread's id, and setpriority on a thread id affects that thread only.
 * When every core is synthesizing, the API's own thread still gets the CPU first.
 */
function lowerThreadPriority(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) os.setPriority(tid, THREAD_NICE);
  } catch {
    // not Linux, or not permitted: run at normal priority
  }
}

const THREAD_NICE = 10;

/** Short phrases spoken (and dropped) before the thread reports ready: a fresh engine's first sentences are the slowest. */
const STARTUP_PHRASES = ['Hello.', 'One, two, three.', 'Thank you for calling.'];

async function main(): Promise<void> {
  const started = performance.now();
  // the start runs at normal priority: the first preview after start waits for it, while the event loop idles
  const [engine, encoder] = await Promise.all([loadEngine(), createMp3Encoder()]);
  engine.engine.set_voice('gmw/en-US');
  for (const phrase of STARTUP_PHRASES) engine.engine.synthesize(phrase, () => 0);
  lowerThreadPriority();
  port!.on('message', (job: WorkerJob) => {
    try {
      const { reply, transfer } = run(engine, encoder, job);
      port!.postMessage(reply, transfer);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      port!.postMessage({ type: 'failed', id: job.id, error: message } satisfies WorkerMessage);
    }
  });
  port!.postMessage({ type: 'ready', startupMs: performance.now() - started } satisfies WorkerMessage);
}

main().catch((error) => {
  // the pool sees the thread exit with an error and starts another
  throw error;
});
