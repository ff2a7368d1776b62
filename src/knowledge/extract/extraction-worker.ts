import { parentPort } from 'node:worker_threads';
import { decodeText } from './detect';
import { extractDocx } from './docx';
import { htmlToDocument } from './html';
import { extractLinks } from './links';
import { markdownToDocument } from './markdown';
import { extractPdf } from './pdf';
import { plainTextToDocument } from './plain-text';
import type { JobStarted, PooledJob, ThreadJob, ThreadResult } from './thread-protocol';
import { type ExtractedDocument, ExtractionError } from './types';

/**
 * An extraction thread of the pool (thread.ts): reads one document (or one page's links) a job and
 * answers one ThreadResult. The parsers run here, not on the caller's event loop, so a huge or hostile
 * file neither blocks it nor outlives its deadline (the pool stops the thread), and a memory cap holds.
 * The parsers are ES modules (PDF.js, linkedom's selector engine), which this plain Node.js thread
 * loads natively, once per thread.
 */

async function readDocument(job: Extract<ThreadJob, { kind: 'document' }>): Promise<ExtractedDocument> {
  switch (job.format) {
    case 'pdf':
      return extractPdf(job.bytes, job);
    case 'docx':
      return extractDocx(job.bytes);
    case 'html':
      return htmlToDocument(decodeText(job.bytes, job.contentType), { mainContentOnly: true });
    case 'markdown':
      return markdownToDocument(decodeText(job.bytes, job.contentType));
    case 'text':
      return plainTextToDocument(decodeText(job.bytes, job.contentType));
  }
}

async function run(job: ThreadJob): Promise<ThreadResult> {
  try {
    if (job.kind === 'links') {
      return { ok: true, links: extractLinks(job.html, job.baseUrl, { sameOrigin: job.sameOrigin }) };
    }
    return { ok: true, document: await readDocument(job) };
  } catch (error) {
    if (error instanceof ExtractionError) {
      const cause = typeof error.cause === 'string' ? error.cause : undefined;
      return { ok: false, failure: error.failure, reason: error.reason, cause };
    }
    return {
      ok: false,
      failure: 'corrupt',
      reason: 'The document is damaged or malformed, so it cannot be read.',
    };
  }
}

/**
 * The pool's handler: says the job has started (its deadline runs from now, not from its wait in the
 * pool's queue), then reads it.
 */
export default async function extractionJob(job: PooledJob): Promise<ThreadResult> {
  parentPort?.postMessage({ extractionStarted: job.jobId } satisfies JobStarted);
  return run(job.job);
}
