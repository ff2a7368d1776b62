import path from 'node:path';
import { type DocumentFormat, ExtractionError, type ExtractionInput } from './types';

/** Content types that name one format. */
const FORMAT_BY_CONTENT_TYPE: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
};

const FORMAT_BY_EXTENSION: Record<string, DocumentFormat> = {
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
  '.txt': 'text',
  '.text': 'text',
};

/** Formats people try that we cannot read, with what to do instead. */
const REFUSED_EXTENSIONS: Record<string, string> = {
  '.doc': 'Word 97-2003 (.doc) files are not supported: save the document as .docx or PDF and upload that.',
  '.docm': 'Macro-enabled Word files (.docm) are not supported: save the document as .docx or PDF.',
  '.rtf': 'RTF files are not supported: save the document as .docx, PDF or plain text.',
};

const SUPPORTED = 'PDF, Word (.docx), HTML, Markdown or plain text';

/** The media type alone, lower-case: `text/html; charset=utf-8` → `text/html`. */
export function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/** The `charset` parameter of a content type, if any. */
export function charsetOf(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1].toLowerCase();
}

function extensionOf(input: ExtractionInput): string {
  if (input.fileName) return path.extname(input.fileName).toLowerCase();
  if (!input.url) return '';
  try {
    return path.posix.extname(new URL(input.url).pathname).toLowerCase();
  } catch {
    return '';
  }
}

const PDF_MAGIC = Buffer.from('%PDF-');
const ZIP_MAGIC = Buffer.from('PK\u0003\u0004', 'latin1');
/** Every .docx (an Office Open XML zip) has this part; its name is stored uncompressed in the zip. */
const DOCX_MAIN_PART = Buffer.from('word/document.xml');

/** The format the first bytes give away, if any: `%PDF-`, a zip holding `word/document.xml`, or HTML. */
function sniff(bytes: Buffer): DocumentFormat | undefined {
  // a PDF may have up to 1 KB of junk before its header, and readers accept that
  if (bytes.subarray(0, 1024).includes(PDF_MAGIC)) return 'pdf';
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC)) return bytes.includes(DOCX_MAIN_PART) ? 'docx' : undefined;
  const head = bytes.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html';
  return undefined;
}

/** Text is anything without NUL bytes in its first 8 KB (binary formats are full of them). */
function looksLikeText(bytes: Buffer): boolean {
  return !bytes.subarray(0, 8192).includes(0);
}

/**
 * The format of a document: from its content type when that names one, then its file extension (or the
 * URL's), then its first bytes. Generic types (`application/octet-stream`, and `text/plain`, which servers
 * and browsers give Markdown too) defer to the extension. Throws ExtractionError('unsupported_type').
 */
export function detectFormat(input: ExtractionInput): DocumentFormat {
  const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  const type = mediaType(input.contentType);
  const byType = FORMAT_BY_CONTENT_TYPE[type];
  if (byType) return byType;
  const extension = extensionOf(input);
  const byExtension = FORMAT_BY_EXTENSION[extension];
  if (byExtension) return byExtension;
  const refused =
    REFUSED_EXTENSIONS[extension] ?? (type === 'application/msword' ? REFUSED_EXTENSIONS['.doc'] : '');
  if (refused) throw new ExtractionError('unsupported_type', refused);
  const sniffed = sniff(bytes);
  if (sniffed) return sniffed;
  const generic = type === '' || type.startsWith('text/') || type === 'application/octet-stream';
  if (generic && looksLikeText(bytes)) return 'text';
  const named = input.fileName ? `"${input.fileName}"` : `content of type "${type || 'unknown'}"`;
  throw new ExtractionError('unsupported_type', `Cannot read ${named}: upload ${SUPPORTED}.`);
}

/** The charset a byte-order mark names, if the bytes start with one. */
function charsetOfBom(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Bytes as text: in the charset a byte-order mark names, else the content type's, else UTF-8. */
export function decodeText(bytes: Uint8Array, contentType: string): string {
  const charset = charsetOfBom(bytes) ?? charsetOf(contentType) ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    // an unknown charset label: UTF-8 is the best guess
    return new TextDecoder('utf-8').decode(bytes);
  }
}
