import path from 'node:path';
import { detectFormat } from './detect';
import type { LinkOptions } from './links';
import { runInThread } from './thread';
import {
  EXTRACTION_TIMEOUT_MS,
  type ExtractedDocument,
  ExtractionError,
  type ExtractionInput,
  type ExtractionLimits,
  MAX_DOCUMENT_BYTES,
  MAX_EXTRACTED_CHARS,
  MAX_PDF_PAGES,
} from './types';

/**
 * Text extraction for knowledge-base sources: PDF, Word (.docx), HTML, Markdown and plain text become an
 * ExtractedDocument (title and heading sections), or an ExtractionError with a reason in plain English.
 * The format is found here; the parsing runs in a thread of its own with a deadline and a memory cap
 * (thread.ts). No other I/O, and nothing in a document is ever executed.
 */

export { detectFormat } from './detect';
export type { LinkOptions } from './links';
export { normalizeText } from './normalize';
export {
  type DocumentFormat,
  EXTRACTION_TIMEOUT_MS,
  type ExtractedDocument,
  type ExtractedSection,
  ExtractionError,
  type ExtractionFailure,
  type ExtractionInput,
  type ExtractionLimits,
  MAX_DOCUMENT_BYTES,
  MAX_EXTRACTED_CHARS,
  MAX_PDF_PAGES,
} from './types';

/** A file size for people: `20 MB`, `1.5 MB`, `300 KB`. */
function sizeInWords(bytes: number): string {
  const megabytes = bytes / (1024 * 1024);
  if (megabytes >= 1) return `${Math.round(megabytes * 10) / 10} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** The file name without its extension, as a title of last resort. */
function titleFromFileName(fileName: string | undefined): string | null {
  if (!fileName) return null;
  const base = path.basename(fileName.replaceAll('\\', '/'), path.extname(fileName)).trim();
  return base || null;
}

/** Checks the whole result: some text, not too much; drops sections with neither heading nor text. */
function finish(document: ExtractedDocument, input: ExtractionInput, maxChars: number): ExtractedDocument {
  const sections = document.sections.filter((section) => section.heading !== null || section.text);
  const chars = sections.reduce((sum, section) => sum + section.text.length, 0);
  if (chars === 0) throw new ExtractionError('empty', 'The document has no text to read.');
  if (chars > maxChars) {
    throw new ExtractionError(
      'too_large',
      `The document holds ${chars.toLocaleString('en')} characters of text; at most ${maxChars.toLocaleString('en')} can be indexed. Split it into smaller files.`,
    );
  }
  const title = document.title?.trim() || titleFromFileName(input.fileName);
  return { ...document, title, sections };
}

/**
 * A document's title and text by heading sections. The format comes from the content type, then the file
 * (or URL) extension, then the first bytes (see `detectFormat`). Throws ExtractionError for a file over
 * `maxBytes` (20 MB), an unsupported type, a damaged or password-protected file, a PDF over `maxPages`
 * pages or still being read after `timeoutMs`, text over `maxChars`, or a document with no text.
 */
export async function extractText(
  input: ExtractionInput,
  limits: ExtractionLimits = {},
): Promise<ExtractedDocument> {
  const resolved: Required<ExtractionLimits> = {
    maxBytes: limits.maxBytes ?? MAX_DOCUMENT_BYTES,
    maxPages: limits.maxPages ?? MAX_PDF_PAGES,
    maxChars: limits.maxChars ?? MAX_EXTRACTED_CHARS,
    timeoutMs: limits.timeoutMs ?? EXTRACTION_TIMEOUT_MS,
  };
  if (input.bytes.byteLength === 0) throw new ExtractionError('empty', 'The file is empty.');
  if (input.bytes.byteLength > resolved.maxBytes) {
    throw new ExtractionError(
      'too_large',
      `The file is ${sizeInWords(input.bytes.byteLength)}; the limit is ${sizeInWords(resolved.maxBytes)}.`,
    );
  }
  const format = detectFormat(input);
  // a copy the thread owns (moved, not cloned again): the caller's bytes stay usable
  const bytes = new Uint8Array(input.bytes);
  const { maxPages, maxChars, timeoutMs } = resolved;
  const job = {
    kind: 'document',
    format,
    bytes,
    contentType: input.contentType,
    maxPages,
    maxChars,
  } as const;
  const result = await runInThread(job, timeoutMs, [bytes.buffer]);
  if (!result.ok) throw new ExtractionError(result.failure, result.reason, result.cause);
  if (!('document' in result)) throw new Error('extraction thread answered links for a document');
  return finish(result.document, input, maxChars);
}

/**
 * The absolute http(s) addresses an HTML page links to, in document order without duplicates, for the
 * URL crawler: resolved against the page's `<base href>` and `baseUrl`, without `#fragments`, links back
 * to the page itself or other schemes (`mailto:`, `javascript:`…); by default only those on the page's
 * own origin (`sameOrigin: false` keeps all). Parsed in an extraction thread, like documents.
 */
export async function extractLinks(
  html: string,
  baseUrl: string,
  options: LinkOptions & { timeoutMs?: number } = {},
): Promise<string[]> {
  new URL(baseUrl); // a bad base address is the caller's mistake: a TypeError here, not a failed page
  const job = { kind: 'links', html, baseUrl, sameOrigin: options.sameOrigin ?? true } as const;
  const result = await runInThread(job, options.timeoutMs ?? EXTRACTION_TIMEOUT_MS);
  if (!result.ok) throw new ExtractionError(result.failure, result.reason, result.cause);
  if (!('links' in result)) throw new Error('extraction thread answered a document for links');
  return result.links;
}
