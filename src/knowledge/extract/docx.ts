import mammoth from 'mammoth';
import { htmlToDocument } from './html';
import { type ExtractedDocument, ExtractionError } from './types';

/**
 * Word (.docx) documents to text, through mammoth: it reads the document's XML and writes simple semantic
 * HTML, mapping Word's heading styles to h1–h6, which then goes the HTML way (headings kept, no page-noise
 * removal: a converted document has none). Macros, fields and embedded objects are never run; images are
 * skipped unread, and external files (linked images) are never opened.
 */

/** Word's "Title" style is the document title: make it an h1 too (mammoth maps Heading 1–6 itself). */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

/** An OLE compound file: what Word writes for a password-protected .docx, and for the old .doc format. */
const COMPOUND_FILE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

export async function extractDocx(bytes: Uint8Array): Promise<ExtractedDocument> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.subarray(0, 8).equals(COMPOUND_FILE_MAGIC)) {
    throw new ExtractionError(
      'encrypted',
      'This Word file is password-protected or in the old .doc format: remove the password, save it as .docx and upload it again.',
    );
  }
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer },
      {
        styleMap: STYLE_MAP,
        externalFileAccess: false,
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      },
    );
    html = result.value;
  } catch (error) {
    throw new ExtractionError(
      'corrupt',
      'The Word document is damaged or is not a .docx file, so it cannot be read.',
      error instanceof Error ? error.message : String(error),
    );
  }
  return htmlToDocument(html, { mainContentOnly: false });
}
