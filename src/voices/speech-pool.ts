import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logging/logger';
import {
  type JobInput,
  type PcmSynthesisResult,
  PoolBusyError,
  type PoolJob,
  type SynthesisResult,
  type WorkerJob,
  type WorkerMessage,
} from './speech-protocol';

export { type JobInput, type PcmSynthesisResult, PoolBusyError, type SynthesisResult };

/**
 * A bounded pool of speech worker threads. Each thread owns one eSpeak NG engine and one MP3 encoder
 * and runs one job at a time (a synthesis, answering MP3 or samples, or an MP3 encoding), so neither
 * blocks the event loop nor interleaves on an engine. Jobs wait in a bounded FIFO queue; warm-up
 * sentences run only when it is empty, one at a time in the whole pool (so warm-up takes one core at
 * most, and with two threads or more a job finds a thread free; with one it waits at most for one
 * warm-up sentence). A thread that crashes or overruns the job deadline is replaced.
 */

export interface SpeechPoolOptions {
  size: number;
  logger: Logger;
  /** A job (queued or running) fails after this long; a running one also costs its thread. */
  jobTimeoutMs?: number;
  /** Jobs that may wait; more are refused with PoolBusyError. */
  maxQueue?: number;
  /**
   * Sentences every thread speaks (results discarded) when it has nothing else to do, after it
   * starts: an engine's first sentences, and its first in each language, are several times slower.
   */
  warmUp?: JobInput[];
}

interface Pending {
  job: WorkerJob;
  resolve(result: SynthesisResult | PcmSynthesisResult): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current?: Pending;
  /** This thread's warm-up jobs still to run. */
  warm: JobInput[];
}

/** The worker entry: compiled JavaScript beside this file, or the TypeScript source run through tsx. */
function spawnWorker(): Worker {
  const compiled = __filename.endsWith('.js');
  const entry = path.join(__dirname, compiled ? 'speech-worker.js' : 'speech-worker.ts');
  if (compiled) return new Worker(entry);
  // under tsx or jest the source is TypeScript: register tsx's require hook in the thread, then load it
  return new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(entry)});`, { eval: true });
}

const MAX_RESTARTS_PER_MINUTE = 10;
const noop = () => {};

export class SpeechPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private readonly readyWaiters: (() => void)[] = [];
  private nextId = 1;
  private started = false;
  private closed = false;
  private restarts: number[] = [];
  readonly size: number;
  private readonly jobTimeoutMs: number;
  private readonly maxQueue: number;

  constructor(private readonly options: SpeechPoolOptions) {
    this.size = Math.max(1, options.size);
    this.jobTimeoutMs = options.jobTimeoutMs ?? 15_000;
    this.maxQueue = options.maxQueue ?? 256;
  }

  /**
   * Starts the threads (once); each loads its engine in the background. The first starts alone, the
   * others once it is ready and has answered what was waiting (or a second later), so the first
   * preview after start does not share the CPU with their start.
   */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.spawn();
  }

  /** Resolves once every thread has loaded its engine. */
  ready(): Promise<void> {
    this.start();
    if (this.closed || this.readyCount() >= this.size) return Promise.resolve();
    return new Promise((resolve) => {
      this.readyWaiters.push(resolve);
      this.dispatch();
    });
  }

  /** Resolves once every thread is ready and has spoken its warm-up sentences. */
  async warmed(): Promise<void> {
    await this.ready();
    while (!this.closed && [...this.slots].some((s) => s.warm.length > 0 || s.current)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Speaks `job` on the next free thread: an MP3 file, or with `output: 'pcm'` the engine's samples. */
  synthesize(job: JobInput & { output: 'pcm' }): Promise<PcmSynthesisResult>;
  synthesize(job: JobInput & { output?: 'mp3' }): Promise<SynthesisResult>;
  synthesize(job: JobInput): Promise<SynthesisResult | PcmSynthesisResult> {
    return this.submit({ type: 'synthesize', ...job });
  }

  /** 16-bit mono samples as MP3 at their own rate (an MP3 rate: 16000, 22050, 24000…); they are copied. */
  encodeMp3({ pcm, sampleRate }: { pcm: Int16Array; sampleRate: number }): Promise<SynthesisResult> {
    // a view is cloned with its whole buffer: send only its own samples
    const own = pcm.byteOffset === 0 && pcm.byteLength === pcm.buffer.byteLength ? pcm : pcm.slice();
    return this.submit({ type: 'encode', pcm: own, sampleRate }) as Promise<SynthesisResult>;
  }

  private submit(job: PoolJob): Promise<SynthesisResult | PcmSynthesisResult> {
    if (this.closed) return Promise.reject(new PoolBusyError('The speech pool is closed'));
    this.start();
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(new PoolBusyError(`${this.queue.length} speech jobs are already waiting`));
    }
    return new Promise((resolve, reject) => {
      const pending: Pending = { job: { ...job, id: this.nextId++ } as WorkerJob, resolve, reject };
      pending.timer = setTimeout(() => this.expire(pending), this.jobTimeoutMs);
      pending.timer.unref();
      this.queue.push(pending);
      this.dispatch();
    });
  }

  stats() {
    const slots = [...this.slots];
    return {
      threads: slots.length,
      ready: slots.filter((s) => s.ready).length,
      busy: slots.filter((s) => s.current).length,
      queued: this.queue.length,
      warming: slots.reduce((n, s) => n + s.warm.length, 0),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.growTimer);
    const closedError = new PoolBusyError('The speech pool is closed');
    const slots = [...this.slots];
    this.slots.clear();
    this.failAll(closedError, slots);
    await Promise.all(slots.map((slot) => slot.worker.terminate().catch(() => undefined)));
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  private failAll(error: Error, slots: Slot[]): void {
    for (const pending of this.queue.splice(0)) this.settle(pending, error);
    for (const slot of slots) {
      if (slot.current) this.settle(slot.current, error);
      slot.current = undefined;
    }
  }

  private growTimer?: NodeJS.Timeout;

  /** Starts the remaining threads when nothing waits, or after a second at the latest. */
  private growSoon(): void {
    if (this.closed || this.slots.size >= this.size || this.growTimer) return;
    const grow = () => {
      clearTimeout(this.growTimer);
      this.growTimer = undefined;
      while (!this.closed && this.slots.size < this.size) this.spawn();
    };
    if (this.queue.length === 0 && ![...this.slots].some((s) => s.current && s.current.resolve !== noop)) {
      grow();
      return;
    }
    this.growTimer = setTimeout(grow, 1000);
    this.growTimer.unref();
  }

  private readyCount(): number {
    return [...this.slots].filter((s) => s.ready).length;
  }

  private spawn(): void {
    const worker = spawnWorker();
    const slot: Slot = { worker, ready: false, warm: [...(this.options.warmUp ?? [])] };
    this.slots.add(slot);
    worker.on('message', (message: WorkerMessage) => this.onMessage(slot, message));
    worker.on('error', (error) => this.onExit(slot, error));
    worker.on('exit', (code) => this.onExit(slot, new Error(`speech worker exited with code ${code}`)));
    this.dispatch();
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.options.logger.debug({ startupMs: Math.round(message.startupMs) }, 'speech worker ready');
      this.growSoon();
      if (this.readyCount() >= this.size) for (const resolve of this.readyWaiters.splice(0)) resolve();
    } else {
      const pending = slot.current;
      if (!pending || pending.job.id !== message.id) return;
      slot.current = undefined;
      if (this.slots.size < this.size && this.queue.length === 0) {
        clearTimeout(this.growTimer);
        this.growTimer = undefined;
        this.growSoon();
      }
      if (message.type === 'failed') this.settle(pending, new Error(message.error));
      else {
        const { type, id, ...result } = message; // the result, without the message's own fields
        this.settle(pending, undefined, result);
      }
    }
    this.dispatch();
  }

  private onExit(slot: Slot, error: Error): void {
    if (!this.slots.delete(slot)) return; // 'error' then 'exit': handled once
    if (this.closed) return;
    this.options.logger.warn({ err: error }, 'speech worker stopped; starting another');
    if (slot.current) this.settle(slot.current, error);
    void slot.worker.terminate().catch(() => undefined);
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < 60_000);
    if (this.restarts.length >= MAX_RESTARTS_PER_MINUTE) {
      this.options.logger.error('speech workers keep failing; not restarting them for now');
      if (this.slots.size === 0) this.failAll(error, []);
      return;
    }
    this.restarts.push(now);
    this.spawn();
  }

  /** A job past its deadline: dropped from the queue, or its thread replaced when it is running. */
  private expire(pending: Pending): void {
    const error = new Error(`Speech synthesis did not finish within ${this.jobTimeoutMs} ms`);
    const index = this.queue.indexOf(pending);
    if (index >= 0) {
      this.queue.splice(index, 1);
      this.settle(pending, error);
      return;
    }
    for (const slot of this.slots) {
      if (slot.current !== pending) continue;
      slot.current = undefined;
      this.settle(pending, error);
      this.slots.delete(slot);
      void slot.worker.terminate().catch(() => undefined);
      if (!this.closed) this.spawn();
      return;
    }
  }

  private settle(pending: Pending, error?: Error, result?: SynthesisResult | PcmSynthesisResult): void {
    if (pending.timer) clearTimeout(pending.timer);
    if (error) pending.reject(error);
    else pending.resolve(result!);
  }

  private dispatch(): void {
    // at most one warm-up sentence runs at a time in the whole pool: warm-up takes one core at most,
    // so the event loop and a real preview arriving meanwhile find a core (and, with 2+ threads, a thread) free
    let warming = [...this.slots].some((s) => s.current && s.current.resolve === noop);
    for (const slot of this.slots) {
      if (!slot.ready || slot.current) continue;
      let next = this.queue.shift();
      if (!next && !warming) {
        const warm = slot.warm.shift();
        if (warm) {
          next = { job: { type: 'synthesize', ...warm, id: this.nextId++ }, resolve: noop, reject: noop };
          warming = true;
        }
      }
      if (!next) continue;
      slot.current = next;
      slot.worker.postMessage(next.job);
    }
    // threads keep the process alive only while a caller waits on them
    const waiting = this.queue.length > 0 || this.readyWaiters.length > 0;
    for (const slot of this.slots) {
      if (waiting || (slot.current && slot.current.resolve !== noop)) slot.worker.ref();
      else slot.worker.unref();
    }
  }
}
