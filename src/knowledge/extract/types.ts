/** What text extraction answers for every format, and how it fails. Pure types and constants. */

/** One stretch of a document under one heading (or before the first heading). */
export interface ExtractedSection {
  /** The heading's text; null for text before the first heading, or a document without any. */
  heading: string | null;
  /** The heading level, 1 (h1) to 6 (h6); 0 when `heading` is null. */
  level: number;
  /** Plain text: paragraphs separated by a blank line, lines within a paragraph by one newline. */
  text: string;
}

/** A document reduced to plain text, headings kept: the chunker splits by them. */
export interface ExtractedDocument {
  /** The document's own title (HTML `<title>`, PDF info, first h1…), else the file name, else null. */
  title: string | null;
  /** In reading order. A PDF has one section per page (`Page 3`), since its headings cannot be recovered. */
  sections: ExtractedSection[];
  /** PDFs only: the page count. */
  pages?: number;
}

/** The formats extraction reads. */
export type DocumentFormat = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

/** Why a document could not be read; each maps to one plain-English reason. */
export type ExtractionFailure =
  | 'unsupported_type'
  | 'empty'
  | 'corrupt'
  | 'encrypted'
  | 'too_large'
  | 'too_many_pages'
  | 'timeout';

/**
 * A document that cannot be turned into text. `reason` is plain English, written for the developer who
 * uploaded it (it becomes the source's `failed` reason); `failure` is the machine-readable kind; `cause`,
 * when there is one, is the parser's own message, for logs.
 */
export class ExtractionError extends Error {
  override readonly name = 'ExtractionError';

  constructor(
    readonly failure: ExtractionFailure,
    readonly reason: string,
    cause?: string,
  ) {
    super(reason, cause === undefined ? undefined : { cause });
  }
}

/** An upload's size limit: 20 MiB. */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;
/** PDFs with more pages are refused. */
export const MAX_PDF_PAGES = 2_000;
/** Extracted text past this many characters (about 1,500 pages of prose) is refused. */
export const MAX_EXTRACTED_CHARS = 5_000_000;
/** A document still being read after this long is abandoned (its thread is stopped). */
export const EXTRACTION_TIMEOUT_MS = 60_000;

/** Limits on one extraction; every field has the default above. */
export interface ExtractionLimits {
  maxBytes?: number;
  maxPages?: number;
  maxChars?: number;
  timeoutMs?: number;
}

/** What `extractText` reads. */
export interface ExtractionInput {
  bytes: Uint8Array;
  /** The upload's or response's Content-Type, parameters allowed (`text/html; charset=iso-8859-1`). */
  contentType: string;
  fileName?: string;
  /** The address a fetched source came from: its path's extension helps detect the format. */
  url?: string;
}
