import { DOCUMENT_TYPES, HTML_TYPES } from './types';

/** Types servers send for files they do not describe: the address's extension then says what it is. */
const UNDESCRIBED_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

const TYPE_BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
};

/**
 * The media type of a page, lower-case without parameters (`text/html; charset=utf-8` → `text/html`).
 * A file served without a type, or as `application/octet-stream`, is typed by its extension
 * (`.pdf`, `.docx`, `.md`, `.txt`), as such files often are.
 */
export function pageMediaType(contentType: string | null, url: string): string {
  const declared = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (!UNDESCRIBED_TYPES.has(declared)) return declared;
  const extension = new URL(url).pathname.match(/\.([a-z0-9]+)$/i)?.[1]?.toLowerCase() ?? '';
  return TYPE_BY_EXTENSION[extension] ?? (declared || 'application/octet-stream');
}

/** Whether a page of this media type is kept. */
export function isDocumentType(mediaType: string): boolean {
  return DOCUMENT_TYPES.has(mediaType);
}

/** Whether a page of this media type is HTML, whose links a crawl follows. */
export function isHtmlType(mediaType: string): boolean {
  return HTML_TYPES.has(mediaType);
}

/** `bytes` as text in the charset `contentType` names, when the platform knows it; else UTF-8. */
export function decodeText(bytes: Uint8Array, contentType: string | null): string {
  const label = contentType?.match(/charset\s*=\s*"?([^";\s]+)/i)?.[1];
  try {
    return new TextDecoder(label ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
