import type { DocumentFormat, ExtractedDocument, ExtractionFailure } from './types';

/** What an extraction thread is given, a job at a time, and what it answers. */

export type ThreadJob =
  | {
      kind: 'document';
      format: DocumentFormat;
      /** The file; the thread owns this copy. */
      bytes: Uint8Array;
      /** For the text formats' charset. */
      contentType: string;
      /** A PDF with more pages is refused before any is read. */
      maxPages: number;
      /** A PDF's reading stops, refused, once its pages so far hold more text than this. */
      maxChars: number;
    }
  | { kind: 'links'; html: string; baseUrl: string; sameOrigin: boolean };

export type ThreadResult =
  | { ok: true; document: ExtractedDocument }
  | { ok: true; links: string[] }
  /** `cause`: the parser's own message, when the failure is not one extraction foresaw. */
  | { ok: false; failure: ExtractionFailure; reason: string; cause?: string };

/** A job as the pool runs it: with the id its `JobStarted` message names. */
export interface PooledJob {
  jobId: number;
  job: ThreadJob;
}

/** What a thread posts to the pool as it starts a job (the job's deadline starts then). */
export interface JobStarted {
  extractionStarted: number;
}
