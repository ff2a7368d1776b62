import { getDocumentProxy } from 'unpdf';
import { normalizeText } from './normalize';
import { type ExtractedDocument, ExtractionError } from './types';

/**
 * PDFs to text with PDF.js (unpdf's serverless build of it, no native canvas), one section per page
 * (`Page 1`, `Page 2`…): a PDF keeps no headings, only positioned glyphs, so pages are the structure it
 * has. PDF.js only parses here: it runs no JavaScript in the PDF (scripting belongs to its viewer, which
 * is not used), fetches nothing and renders nothing. Runs in an extraction thread (PDF.js is an ES module).
 */

export interface PdfLimits {
  maxPages: number;
  maxChars: number;
}

interface PositionedText {
  str: string;
  /** [a, b, c, d, x, y]: y is the baseline, growing upwards. */
  transform: number[];
  height: number;
  hasEOL: boolean;
}

/** A gap between baselines over this many times the font size starts a new paragraph. */
const PARAGRAPH_GAP = 1.6;

/** A page's text items as lines, and paragraphs where the vertical gap is wider than a line's. */
function pageText(items: readonly object[]): string {
  let text = '';
  let previous: { y: number; size: number } | undefined;
  for (const item of items) {
    if (!('str' in item)) continue; // marked-content boundaries carry no text
    const { str, transform, height, hasEOL } = item as PositionedText;
    const y = transform[5];
    const size = height || Math.abs(transform[3]) || 1;
    if (previous && str.trim()) {
      const gap = previous.y - y;
      const lineSize = Math.max(size, previous.size);
      if (Math.abs(gap) > lineSize / 2 && !text.endsWith('\n')) text += '\n';
      if (gap > PARAGRAPH_GAP * lineSize && !text.endsWith('\n\n')) text += '\n';
    }
    text += str;
    if (hasEOL) text += '\n';
    if (str.trim()) previous = { y, size };
  }
  return text;
}

/** A PDF.js loading error in words for the person who uploaded the file. */
function openingError(error: unknown): ExtractionError {
  const cause = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'PasswordException') {
    return new ExtractionError(
      'encrypted',
      'The PDF is password-protected: remove the password and upload it again.',
      cause,
    );
  }
  return new ExtractionError(
    'corrupt',
    'The PDF is damaged or is not a valid PDF file, so its text cannot be read.',
    cause,
  );
}

/** Every page's text, refusing a PDF over the page or character limit as soon as it is known. */
async function readPages(
  bytes: Uint8Array,
  limits: PdfLimits,
): Promise<{ title: string | null; pages: string[] }> {
  const pdf = await getDocumentProxy(bytes, { verbosity: 0, stopAtErrors: false, enableXfa: false }).catch(
    (error) => {
      throw openingError(error);
    },
  );
  try {
    if (pdf.numPages > limits.maxPages) {
      const reason = `The PDF has ${pdf.numPages} pages; at most ${limits.maxPages} can be read. Split it into smaller files.`;
      throw new ExtractionError('too_many_pages', reason);
    }
    const pages: string[] = [];
    let chars = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const text = pageText((await page.getTextContent()).items);
      page.cleanup();
      pages.push(text);
      chars += text.length;
      if (chars > limits.maxChars) {
        const most = limits.maxChars.toLocaleString('en');
        const reason = `The PDF holds more than ${most} characters of text, the most one document may have. Split it into smaller files.`;
        throw new ExtractionError('too_large', reason);
      }
    }
    const info = (await pdf.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : null;
    return { title, pages };
  } catch (error) {
    throw error instanceof ExtractionError ? error : openingError(error);
  } finally {
    await pdf.loadingTask.destroy();
  }
}

export async function extractPdf(bytes: Uint8Array, limits: PdfLimits): Promise<ExtractedDocument> {
  const { title, pages } = await readPages(bytes, limits);
  const sections = pages
    .map((text, index) => ({ heading: `Page ${index + 1}`, level: 1, text: normalizeText(text) }))
    .filter((section) => section.text);
  if (sections.length === 0) {
    throw new ExtractionError(
      'empty',
      'The PDF has no text to read: it may hold only scanned images, and text recognition (OCR) is not supported.',
    );
  }
  return { title, sections, pages: pages.length };
}
