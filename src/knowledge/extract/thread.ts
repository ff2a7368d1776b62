import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { JobStarted, PooledJob, ThreadJob, ThreadResult } from './thread-protocol';
import { ExtractionError } from './types';

/**
 * Extraction jobs run in a pool of threads (piscina: a well-kept worker-thread pool with per-task
 * cancellation and resource limits, docs/knowledge.md "Limits"), each thread reading one job at a
 * time with a deadline and a heap cap. A thread is kept between jobs, so a crawl's pages do not each
 * pay a thread's start and its parsers' loading (about 0.1 s compiled, 0.4 s under tsx); an idle
 * thread goes after EXTRACTION_THREAD_IDLE_MS. A job that overruns its deadline has its thread stopped
 * (a parse cannot be interrupted otherwise), as has a thread out of memory; the pool starts another.
 */

/** The heap an extraction thread may use: far more than a 20 MB document's text needs. */
const THREAD_HEAP_MB = 1_024;
/** Threads at most: the machine's cores, up to 4 (an ingestion's other steps wait on I/O). */
const MAX_THREADS = Math.max(1, Math.min(4, os.availableParallelism()));
/** An idle thread is stopped after this long: a crawl's pages reuse it, an idle worker holds none. */
export const EXTRACTION_THREAD_IDLE_MS = 60_000;

let pool: Piscina | undefined;
let nextJobId = 1;
/** Jobs waiting for their thread to say they started: their deadline's start. */
const starting = new Map<number, () => void>();

/** The thread entry: compiled JavaScript beside this file, or the TypeScript source through tsx. */
function threadEntry(): string {
  const compiled = __filename.endsWith('.js');
  return path.join(__dirname, compiled ? 'extraction-worker.js' : 'extraction-worker-tsx.cjs');
}

function extractionPool(): Piscina {
  if (!pool) {
    pool = new Piscina({
      filename: threadEntry(),
      minThreads: 0,
      maxThreads: MAX_THREADS,
      idleTimeout: EXTRACTION_THREAD_IDLE_MS,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    pool.on('message', (message: JobStarted) => {
      starting.get(message.extractionStarted)?.();
    });
  }
  return pool;
}

function threadError(error: Error & { code?: string }): ExtractionError {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new ExtractionError(
      'too_large',
      'The document needs too much memory to read. Split it into smaller files.',
    );
  }
  if (/^worker exited/.test(error.message))
    return new ExtractionError('corrupt', 'The document reader stopped early.');
  return new ExtractionError('corrupt', 'The document could not be read.', error.message);
}

/**
 * The job's result; rejects with an ExtractionError when the job overruns `timeoutMs` (counted from
 * its start in a thread, not from its wait for one), runs out of memory or its thread dies.
 * `transferList` moves buffers in `job` to the thread instead of copying them.
 */
export async function runInThread(
  job: ThreadJob,
  timeoutMs: number,
  transferList: ArrayBuffer[] = [],
): Promise<ThreadResult> {
  const jobId = nextJobId++;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  starting.set(jobId, () => {
    starting.delete(jobId);
    timer = setTimeout(() => abort.abort(), timeoutMs);
  });
  try {
    const task: PooledJob = { jobId, job };
    return (await extractionPool().run(task, { transferList, signal: abort.signal })) as ThreadResult;
  } catch (error) {
    if (abort.signal.aborted) {
      const seconds = Math.max(1, Math.round(timeoutMs / 1000));
      throw new ExtractionError('timeout', `Reading the document took longer than ${seconds} seconds.`);
    }
    throw threadError(error as Error & { code?: string });
  } finally {
    starting.delete(jobId);
    clearTimeout(timer);
  }
}

/** The pool's threads now (their thread ids): what a test checks is reused. */
export function extractionThreadIds(): number[] {
  return pool?.threads.map((t) => t.threadId) ?? [];
}
