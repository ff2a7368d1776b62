import fs from 'node:fs';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { createMp3Encoder } from 'wasm-media-encoders';
import { MP3_KBPS, type SynthesisJob, type WorkerMessage } from './speech-protocol';

/**
 * A speech worker thread: one eSpeak NG engine (WebAssembly) and one MP3 encoder, used by one job at a
 * time. The voice, rate and pitch are engine state, so every job sets all three before it speaks, and
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

function synthesize(
  { engine, hasVariant }: Awaited<ReturnType<typeof loadEngine>>,
  encoder: Awaited<ReturnType<typeof createMp3Encoder>>,
  job: SynthesisJob,
) {
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
  const sampleRate = engine.get_samplerate();
  encoder.configure({ channels: 1, sampleRate, bitrate: MP3_KBPS });
  const parts: Uint8Array[] = [];
  let samples = 0;
  engine.synthesize(job.text, (chunk) => {
    if (chunk.length === 0) return 0;
    const pcm = new Float32Array(chunk.length);
    for (let i = 0; i < chunk.length; i++) pcm[i] = chunk[i] / 32768;
    samples += chunk.length;
    parts.push(encoder.encode([pcm]).slice()); // the encoder owns its output buffer: copy it
    return 0;
  });
  parts.push(encoder.finalize().slice());
  const mp3 = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    mp3.set(p, offset);
    offset += p.length;
  }
  return { mp3, samples, sampleRate };
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
  port!.on('message', (job: SynthesisJob) => {
    const t0 = performance.now();
    let reply: WorkerMessage;
    try {
      const { mp3, samples, sampleRate } = synthesize(engine, encoder, job);
      reply = { type: 'done', id: job.id, mp3, samples, sampleRate, synthMs: performance.now() - t0 };
      port!.postMessage(reply, [mp3.buffer as ArrayBuffer]);
    } catch (error) {
      reply = { type: 'failed', id: job.id, error: error instanceof Error ? error.message : String(error) };
      port!.postMessage(reply);
    }
  });
  port!.postMessage({ type: 'ready', startupMs: performance.now() - started } satisfies WorkerMessage);
}

main().catch((error) => {
  // the pool sees the thread exit with an error and starts another
  throw error;
});
