import os from 'node:os';
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import PDFDocument from 'pdfkit';
import {
  type ExtractedDocument,
  ExtractionError,
  type ExtractionInput,
  type ExtractionLimits,
  extractLinks,
  extractText,
} from '../src/knowledge/extract';
import { extractionThreadIds } from '../src/knowledge/extract/thread';

/** Knowledge-base text extraction: every format from real files made here, and how each fails. */

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A PDF written by pdfkit: one page per entry, paragraphs separated by a blank line. */
function makePdf(pages: string[][], options: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const pdf = new PDFDocument(options);
    const parts: Buffer[] = [];
    pdf.on('data', (part: Buffer) => parts.push(part));
    pdf.on('end', () => resolve(Buffer.concat(parts)));
    pdf.on('error', reject);
    pages.forEach((paragraphs, index) => {
      if (index > 0) pdf.addPage();
      for (const paragraph of paragraphs) pdf.text(paragraph).moveDown();
    });
    pdf.end();
  });
}

async function failureOf(input: ExtractionInput, limits?: ExtractionLimits): Promise<ExtractionError> {
  const error = await extractText(input, limits).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ExtractionError);
  const extractionError = error as ExtractionError;
  expect(extractionError.reason.length).toBeGreaterThan(10);
  return extractionError;
}

function html(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

const headingsOf = (document: ExtractedDocument) => document.sections.map((s) => [s.level, s.heading]);

describe('PDF', () => {
  const pages = [
    ['Knowledge bases let an agent answer from your documents.', 'Upload a PDF and it is read page by page.'],
    ['The second page explains refunds: within 30 days, in full.'],
    ['The third page lists the opening hours, 9 to 5 on weekdays.'],
  ];

  it('reads each page as a section, with its paragraphs, title and page count', async () => {
    const bytes = await makePdf(pages, { info: { Title: 'Help centre' } });
    const document = await extractText({ bytes, contentType: PDF, fileName: 'help.pdf' });
    expect(document.title).toBe('Help centre');
    expect(document.pages).toBe(3);
    expect(headingsOf(document)).toEqual([
      [1, 'Page 1'],
      [1, 'Page 2'],
      [1, 'Page 3'],
    ]);
    expect(document.sections[0].text).toBe(pages[0].join('\n\n'));
    expect(document.sections[1].text).toBe(pages[1][0]);
    expect(document.sections[2].text).toBe(pages[2][0]);
  });

  it('is recognised by its bytes alone, and titled by its file name without a title of its own', async () => {
    const bytes = await makePdf([['Just one page.']]);
    const document = await extractText({
      bytes,
      contentType: 'application/octet-stream',
      fileName: 'Price list.bin',
    });
    expect(document.sections).toEqual([{ heading: 'Page 1', level: 1, text: 'Just one page.' }]);
    expect(document.title).toBe('Price list');
  });

  it('refuses a truncated PDF as damaged', async () => {
    const bytes = await makePdf(pages);
    const error = await failureOf({
      bytes: bytes.subarray(0, Math.floor(bytes.length / 2)),
      contentType: PDF,
    });
    expect(error.failure).toBe('corrupt');
    expect(error.reason).toMatch(/damaged/);
    expect(error.cause).toMatch(/Invalid PDF structure/); // PDF.js's own words, for logs
  });

  it('refuses a password-protected PDF', async () => {
    const bytes = await makePdf(pages, { userPassword: 'secret', pdfVersion: '1.7' });
    const error = await failureOf({ bytes, contentType: PDF });
    expect(error.failure).toBe('encrypted');
    expect(error.reason).toMatch(/password/);
  });

  it('refuses a PDF without text (scanned pages)', async () => {
    const bytes = await makePdf([[]]);
    expect((await failureOf({ bytes, contentType: PDF })).failure).toBe('empty');
  });

  it('guards pages, text size and time', async () => {
    const bytes = await makePdf(pages);
    expect((await failureOf({ bytes, contentType: PDF }, { maxPages: 2 })).failure).toBe('too_many_pages');
    expect((await failureOf({ bytes, contentType: PDF }, { maxChars: 100 })).failure).toBe('too_large');
    expect((await failureOf({ bytes, contentType: PDF }, { timeoutMs: 1 })).failure).toBe('timeout');
    expect((await failureOf({ bytes, contentType: PDF }, { maxBytes: 100 })).failure).toBe('too_large');
  });
});

describe('DOCX', () => {
  it('keeps Word headings as sections, with their paragraphs and lists', async () => {
    const docx = new Document({
      sections: [
        {
          children: [
            new Paragraph({ text: 'Store policies', heading: HeadingLevel.TITLE }),
            new Paragraph({ text: 'Returns', heading: HeadingLevel.HEADING_1 }),
            new Paragraph({
              children: [new TextRun('Items can be returned '), new TextRun({ text: 'unused', bold: true })],
            }),
            new Paragraph({ text: 'Refunds', heading: HeadingLevel.HEADING_2 }),
            new Paragraph('Refunds go back to the original card.'),
            new Paragraph({ text: 'Card refunds take 5 days', bullet: { level: 0 } }),
            new Paragraph({ text: 'Gift cards are refunded at once', bullet: { level: 0 } }),
            new Paragraph({ text: 'Shipping', heading: HeadingLevel.HEADING_1 }),
            new Paragraph('We ship worldwide.'),
          ],
        },
      ],
    });
    const bytes = await Packer.toBuffer(docx);
    const document = await extractText({
      bytes,
      contentType: 'application/octet-stream',
      fileName: 'policies',
    });
    expect(document.title).toBe('Store policies');
    expect(document.sections).toEqual([
      { heading: 'Store policies', level: 1, text: '' },
      { heading: 'Returns', level: 1, text: 'Items can be returned unused' },
      {
        heading: 'Refunds',
        level: 2,
        text: 'Refunds go back to the original card.\n\n- Card refunds take 5 days\n- Gift cards are refunded at once',
      },
      { heading: 'Shipping', level: 1, text: 'We ship worldwide.' },
    ]);
  });

  it('refuses a damaged .docx and a password-protected one', async () => {
    const damaged = Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(200, 7)]);
    expect((await failureOf({ bytes: damaged, contentType: DOCX })).failure).toBe('corrupt');
    const compoundFile = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
    expect((await failureOf({ bytes: compoundFile, contentType: DOCX })).failure).toBe('encrypted');
  });
});

describe('HTML', () => {
  const noise = `
    <script>window.secretTracker = 'do-not-index';</script>
    <style>.hero { color: red }</style>
    <div id="cookie-banner" class="consent">We use cookies. <button>Accept all</button></div>
    <header class="site"><a href="/">Acme</a><ul><li>Home</li><li>Pricing</li></ul></header>
    <nav><a href="/docs">Docs</a><a href="/blog">Blog</a></nav>
    <div role="navigation">Breadcrumbs: Home / Help</div>
    <aside>Related: How to train your dragon</aside>
    <form><label>Newsletter</label><input name="email"></form>
    <footer>© Acme 2024 · Privacy · Terms</footer>`;
  const article = `
    <h1>Returns and refunds</h1>
    <p>You can return any unused item within <strong>30 days</strong> of delivery.</p>
    <h2>Refunds</h2>
    <p>Refunds go back to the original payment method.</p>
    <script>document.write('injected inside the article')</script>
    <ul><li>Cards: 5 working days</li><li>PayPal: 1 day</li></ul>
    <h3>Partial refunds</h3>
    <table><tr><th>Case</th><th>Refund</th></tr><tr><td>Opened</td><td>50%</td></tr></table>`;
  const expectedSections = [
    {
      heading: 'Returns and refunds',
      level: 1,
      text: 'You can return any unused item within 30 days of delivery.',
    },
    {
      heading: 'Refunds',
      level: 2,
      text: 'Refunds go back to the original payment method.\n\n- Cards: 5 working days\n- PayPal: 1 day',
    },
    { heading: 'Partial refunds', level: 3, text: 'Case | Refund\nOpened | 50%' },
  ];

  it("keeps only a page's marked main content, headings kept, scripts and page furniture gone", async () => {
    const page = `<!doctype html><html><head><title>Returns | Acme Help</title></head>
      <body>${noise}<main>${article}</main></body></html>`;
    const document = await extractText({ bytes: html(page), contentType: 'text/html; charset=utf-8' });
    expect(document.title).toBe('Returns and refunds');
    expect(document.sections).toEqual(expectedSections);
    const all = JSON.stringify(document);
    for (const gone of [
      'secretTracker',
      'injected',
      'cookies',
      'Pricing',
      'Docs',
      'Breadcrumbs',
      'dragon',
      '©',
    ]) {
      expect(all).not.toContain(gone);
    }
  });

  it('finds the article with Readability on a page that marks none', async () => {
    const filler = Array.from(
      { length: 8 },
      (_, i) =>
        `<p>Paragraph ${i} explains the policy in detail, with enough words to read as prose, like articles do.</p>`,
    ).join('');
    const page = `<html><head><title>Policy</title></head><body>${noise}
      <div class="sidebar"><a href="/a">Link one</a> <a href="/b">Link two</a></div>
      <div class="content"><h2>Our policy</h2>${filler}<h2>Exceptions</h2><p>Sale items are final sale and cannot be returned, sorry.</p></div>
      </body></html>`;
    const document = await extractText({
      bytes: html(page),
      contentType: 'text/html',
      fileName: 'policy.html',
    });
    expect(document.sections.map((s) => s.heading)).toEqual(['Our policy', 'Exceptions']);
    expect(document.sections[0].text.split('\n\n')).toHaveLength(8);
    expect(JSON.stringify(document)).not.toMatch(/secretTracker|cookies|Link one|Pricing/);
  });

  it('decodes the charset the content type names', async () => {
    const latin1 = Buffer.from(
      "<html><body><main><p>Café crème, s'il vous plaît</p></main></body></html>",
      'latin1',
    );
    const document = await extractText({ bytes: latin1, contentType: 'text/html; charset=ISO-8859-1' });
    expect(document.sections[0].text).toBe("Café crème, s'il vous plaît");
  });

  it('refuses a page with no text', async () => {
    const page = `<html><body>${noise}</body></html>`;
    expect((await failureOf({ bytes: html(page), contentType: 'text/html' })).failure).toBe('empty');
  });
});

describe('Markdown', () => {
  const markdown = [
    '---',
    'title: "Support handbook"',
    'tags: [help]',
    '---',
    'Read this first.',
    '',
    '# Returns',
    'Return unused items within 30 days.',
    '',
    '## Refunds',
    '',
    '### By card',
    'Refunds to cards take *5* days:',
    '',
    '1. Open the order',
    '2. Choose **Refund**',
    '',
    '```',
    'curl https://api.example.com/refunds',
    '```',
    '<script>alert("never")</script>',
    '',
    '# Shipping',
    'Worldwide.',
  ].join('\n');

  it('splits at nested headings, lists and code kept, front matter and scripts dropped', async () => {
    const document = await extractText({
      bytes: html(markdown),
      contentType: 'text/plain',
      fileName: 'handbook.md',
    });
    expect(document.title).toBe('Support handbook');
    expect(document.sections).toEqual([
      { heading: null, level: 0, text: 'Read this first.' },
      { heading: 'Returns', level: 1, text: 'Return unused items within 30 days.' },
      { heading: 'Refunds', level: 2, text: '' },
      {
        heading: 'By card',
        level: 3,
        text: 'Refunds to cards take 5 days:\n\n1. Open the order\n2. Choose Refund\n\ncurl https://api.example.com/refunds',
      },
      { heading: 'Shipping', level: 1, text: 'Worldwide.' },
    ]);
  });

  it('takes the first h1 as the title without front matter', async () => {
    const document = await extractText({
      bytes: html('# Setup guide\n\nInstall it.'),
      contentType: 'text/markdown',
    });
    expect(document.title).toBe('Setup guide');
  });
});

describe('plain text', () => {
  it('is one section of normalised paragraphs', async () => {
    const text =
      '\uFEFFOpening hours\r\n\r\n\r\nMonday  to\tFriday, 9 to 5.\r\nClosed on holidays.\u200B\n\n\n';
    const document = await extractText({
      bytes: html(text),
      contentType: 'text/plain',
      fileName: 'hours.txt',
    });
    expect(document).toEqual({
      title: 'hours',
      sections: [
        { heading: null, level: 0, text: 'Opening hours\n\nMonday to Friday, 9 to 5.\nClosed on holidays.' },
      ],
    });
  });
});

describe('format detection and limits', () => {
  it('refuses unsupported and empty files with a reason', async () => {
    const binary = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]);
    const image = await failureOf({ bytes: binary, contentType: 'image/png', fileName: 'logo.png' });
    expect(image.failure).toBe('unsupported_type');
    expect(image.reason).toMatch(/PDF, Word \(.docx\), HTML, Markdown or plain text/);
    const legacy = await failureOf({ bytes: binary, contentType: 'application/msword', fileName: 'old.doc' });
    expect(legacy.reason).toMatch(/save the document as .docx/);
    expect((await failureOf({ bytes: new Uint8Array(), contentType: 'text/plain' })).failure).toBe('empty');
    expect((await failureOf({ bytes: html(' \n\t '), contentType: 'text/plain' })).failure).toBe('empty');
  });

  it('refuses a file over the size limit before reading it', async () => {
    const error = await failureOf({ bytes: new Uint8Array(21 * 1024 * 1024), contentType: 'text/plain' });
    expect(error.failure).toBe('too_large');
    expect(error.reason).toBe('The file is 21 MB; the limit is 20 MB.');
  });

  it('goes by extension, then by the first bytes', async () => {
    const page = html('<!DOCTYPE html><html><body><main><h1>Sniffed</h1><p>Body.</p></main></body></html>');
    expect((await extractText({ bytes: page, contentType: '' })).title).toBe('Sniffed');
    const byUrl = await extractText({
      bytes: html('# From a URL\n\nText.'),
      contentType: 'text/plain',
      url: 'https://x.test/README.md',
    });
    expect(byUrl.sections[0]).toEqual({ heading: 'From a URL', level: 1, text: 'Text.' });
  });
});

describe('extraction threads', () => {
  const page = (i: number) =>
    html(`<html><body><main><h1>Page ${i}</h1><p>Text of page ${i}.</p></main></body></html>`);

  it('keeps its threads between jobs: twelve pages read in turn by no more threads than the pool has', async () => {
    const used = new Set<number>();
    for (let i = 0; i < 12; i++) {
      expect((await extractText({ bytes: page(i), contentType: 'text/html' })).title).toBe(`Page ${i}`);
      for (const id of extractionThreadIds()) used.add(id);
    }
    expect(used.size).toBeGreaterThan(0);
    expect(used.size).toBeLessThanOrEqual(Math.min(4, os.availableParallelism()));
  });

  it('stops the thread of a job past its deadline, and reads the next job in another', async () => {
    const bytes = await makePdf([['A page that takes longer than a millisecond to read.']]);
    const before = extractionThreadIds(); // idle threads: the job runs in one of them
    expect(before.length).toBeGreaterThan(0);
    expect((await failureOf({ bytes, contentType: PDF }, { timeoutMs: 1 })).failure).toBe('timeout');
    expect((await extractText({ bytes: page(99), contentType: 'text/html' })).title).toBe('Page 99');
    const after = extractionThreadIds();
    expect(before.filter((id) => after.includes(id))).toHaveLength(before.length - 1);
  });
});

describe('extractLinks', () => {
  it('answers absolute same-site links without fragments or duplicates', async () => {
    const page = `<html><head><base href="/docs/"></head><body>
      <a href="intro">Intro</a> <a href="intro#setup">Intro again</a> <a href="#top">Top</a>
      <a href="/pricing?plan=pro">Pricing</a> <a href="https://other.test/x">Elsewhere</a>
      <a href="mailto:help@acme.test">Mail</a> <a href="javascript:void(0)">JS</a> <a href="http://[bad">Bad</a>
      <map><area href="../about" alt="About"></map></body></html>`;
    expect(await extractLinks(page, 'https://acme.test/docs/start#x')).toEqual([
      'https://acme.test/docs/intro',
      'https://acme.test/pricing?plan=pro',
      'https://acme.test/about',
    ]);
    expect(await extractLinks(page, 'https://acme.test/docs/start', { sameOrigin: false })).toContain(
      'https://other.test/x',
    );
    await expect(extractLinks(page, 'not a url')).rejects.toThrow('Invalid URL');
  });
});
