import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ThreadJob, ThreadResult } from './thread-protocol';
import { ExtractionError } from './types';

/**
 * Runs one extraction job in a thread of its own (extraction-worker.ts), with a deadline and a heap cap,
 * and stops the thread when it answers, overruns, runs out of memory or dies. One thread per job: a
 * document's parse leaves nothing behind, and a thread starts in about a tenth of a second, little
 * beside an ingestion's fetch and indexing.
 */

/** The heap an extraction thread may use: far more than a 20 MB document's text needs. */
const THREAD_HEAP_MB = 1_024;

/** The thread entry: compiled JavaScript beside this file, or the TypeScript source run through tsx. */
function spawnThread(job: ThreadJob, transferList: ArrayBuffer[]): Worker {
  const compiled = __filename.endsWith('.js');
  const entry = path.join(__dirname, compiled ? 'extraction-worker.js' : 'extraction-worker.ts');
  const options = {
    workerData: job,
    transferList,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  };
  if (compiled) return new Worker(entry, options);
  // under tsx or jest the source is TypeScript: register tsx's require hook in the thread, then load it
  const source = `require('tsx/cjs/api').register(); require(${JSON.stringify(entry)});`;
  return new Worker(source, { ...options, eval: true });
}

function threadError(error: Error & { code?: string }): ExtractionError {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new ExtractionError(
      'too_large',
      'The document needs too much memory to read. Split it into smaller files.',
    );
  }
  return new ExtractionError('corrupt', 'The document could not be read.', error.message);
}

/**
 * The job's result; rejects with an ExtractionError when the thread overruns `timeoutMs`, runs out of
 * memory or dies. `transferList` moves buffers in `job` to the thread instead of copying them.
 */
export function runInThread(
  job: ThreadJob,
  timeoutMs: number,
  transferList: ArrayBuffer[] = [],
): Promise<ThreadResult> {
  return new Promise((resolve, reject) => {
    const worker = spawnThread(job, transferList);
    const timer = setTimeout(() => {
      const seconds = Math.max(1, Math.round(timeoutMs / 1000));
      finish(() =>
        reject(new ExtractionError('timeout', `Reading the document took longer than ${seconds} seconds.`)),
      );
    }, timeoutMs);
    function finish(settle: () => void): void {
      clearTimeout(timer);
      worker.removeAllListeners();
      worker.on('error', () => {}); // an error while stopping has nobody left to tell
      void worker.terminate();
      settle();
    }
    worker.once('message', (result: ThreadResult) => finish(() => resolve(result)));
    worker.once('error', (error: Error) => finish(() => reject(threadError(error))));
    worker.once('exit', () =>
      finish(() => reject(new ExtractionError('corrupt', 'The document reader stopped early.'))),
    );
  });
}
