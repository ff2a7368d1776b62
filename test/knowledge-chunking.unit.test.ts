import fc from 'fast-check';
import {
  CHUNK_MAX_CHARS,
  CHUNK_OVERLAP_CHARS,
  CHUNK_TARGET_CHARS,
  type Chunk,
  chunkDocument,
  chunkText,
} from '../src/knowledge/chunking';
import type { ExtractedDocument, ExtractedSection } from '../src/knowledge/extract';

/** Knowledge-base chunking: sizes, overlap, heading paths, determinism and coverage. */

/** Prose: numbered sentences of ordinary words, so every sentence can be found again. */
function sentence(n: number): string {
  return `Sentence ${n} tells the agent a small fact about returns, refunds and delivery times for order ${n}.`;
}

function paragraph(first: number, count: number): string {
  return Array.from({ length: count }, (_, i) => sentence(first + i)).join(' ');
}

function section(heading: string | null, level: number, text: string): ExtractedSection {
  return { heading, level, text };
}

/** The longest end of `previous` that `next` starts with (the overlap), at least `min` characters. */
function overlapBetween(previous: string, next: string, min = 20): string {
  for (let length = Math.min(previous.length, next.length); length >= min; length--) {
    if (next.startsWith(previous.slice(-length))) return previous.slice(-length);
  }
  return '';
}

function expectWellFormed(chunks: Chunk[]): void {
  chunks.forEach((chunk, index) => {
    expect(chunk.ordinal).toBe(index);
    expect(chunk.text.length).toBeGreaterThan(0);
    expect(chunk.text.length).toBeLessThanOrEqual(CHUNK_MAX_CHARS);
    expect(chunk.text).toBe(chunk.text.trim());
    expect(chunk.text).not.toMatch(/[^\S\n]{2,}|\n{3,}|[\t\r]| \n|\n /);
    expect(chunk.tokenEstimate).toBe(Math.ceil(chunk.text.length / 4));
  });
}

describe('chunkDocument', () => {
  const handbook: ExtractedDocument = {
    title: 'Handbook',
    sections: [
      section(null, 0, 'Welcome to the handbook.'),
      section('Returns', 1, paragraph(1, 3)),
      section('Refunds', 2, ''),
      section('By card', 3, `${paragraph(10, 12)}\n\n${paragraph(30, 12)}\n\n${paragraph(50, 4)}`),
      section('Shipping', 1, 'We ship worldwide.'),
      section('Rates', 3, 'Flat rate.'),
    ],
  };

  it('carries the heading path, a section without text adding to it but making no chunk', () => {
    const chunks = chunkDocument(handbook);
    expectWellFormed(chunks);
    const headings = [...new Set(chunks.map((chunk) => chunk.heading))];
    expect(headings).toEqual([
      null,
      'Returns',
      'Returns > Refunds > By card',
      'Shipping',
      'Shipping > Rates',
    ]);
    expect(chunks[0].text).toBe('Welcome to the handbook.');
    expect(chunks.at(-1)).toMatchObject({ heading: 'Shipping > Rates', text: 'Flat rate.' });
  });

  it('packs paragraphs up to the target, splits long ones by sentence, and overlaps within a section', () => {
    const chunks = chunkDocument(handbook).filter((chunk) => chunk.heading === 'Returns > Refunds > By card');
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.text.length).toBeGreaterThan(CHUNK_TARGET_CHARS / 2);
      expect(chunk.text.length).toBeLessThanOrEqual(CHUNK_TARGET_CHARS + CHUNK_OVERLAP_CHARS);
    }
    for (let i = 1; i < chunks.length; i++) {
      const overlap = overlapBetween(chunks[i - 1].text, chunks[i].text);
      expect(overlap.length).toBeGreaterThanOrEqual(CHUNK_OVERLAP_CHARS / 3);
      expect(overlap.length).toBeLessThanOrEqual(CHUNK_OVERLAP_CHARS);
      // the overlap is whole sentences here: it starts where a sentence starts
      expect(overlap).toMatch(/^Sentence \d+ /);
    }
    // every sentence is in some chunk, whole
    for (let n = 10; n < 54; n++) {
      if (n >= 22 && n < 30) continue;
      if (n >= 42 && n < 50) continue;
      expect(chunks.some((chunk) => chunk.text.includes(sentence(n)))).toBe(true);
    }
  });

  it('never overlaps across sections', () => {
    const chunks = chunkDocument(handbook);
    for (let i = 1; i < chunks.length; i++) {
      if (chunks[i].heading !== chunks[i - 1].heading) {
        expect(overlapBetween(chunks[i - 1].text, chunks[i].text, 5)).toBe('');
      }
    }
  });

  it('is deterministic', () => {
    expect(chunkDocument(handbook)).toEqual(chunkDocument(structuredClone(handbook)));
  });

  it('chunks a 50-page document', () => {
    const pages = Array.from({ length: 50 }, (_, page) =>
      section(
        `Page ${page + 1}`,
        1,
        [paragraph(page * 100, 8), paragraph(page * 100 + 8, 14), 'A short line.'].join('\n\n'),
      ),
    );
    const chunks = chunkDocument({ title: 'Manual', sections: pages, pages: 50 });
    expectWellFormed(chunks);
    expect(new Set(chunks.map((chunk) => chunk.heading)).size).toBe(50);
    expect(chunks.length).toBeGreaterThan(150);
    expect(chunks.length).toBeLessThan(300);
  });
});

describe('chunkText', () => {
  it('normalises whitespace and keeps a short text whole', () => {
    expect(chunkText('  One\t two  \r\n\r\n\r\n three ')).toEqual(['One two\n\nthree']);
    expect(chunkText(' \n\t ')).toEqual([]);
  });

  it('cuts a run-on text at word boundaries, and a word without spaces anywhere', () => {
    const words = Array.from({ length: 600 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(words);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(CHUNK_MAX_CHARS);
      expect(chunk).toMatch(/^word\d+( word\d+)*$/);
    }
    const blob = 'x'.repeat(5_000);
    expect(chunkText(blob).every((chunk) => chunk.length <= CHUNK_MAX_CHARS && /^x+$/.test(chunk))).toBe(
      true,
    );
  });

  it('keeps list lines on their own lines when a long list is split', () => {
    const list = Array.from({ length: 60 }, (_, i) => `- Item ${i} is one line of a long list.`).join('\n');
    const chunks = chunkText(list);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks)
      expect(chunk.split('\n').every((line) => /^- Item \d+ is/.test(line))).toBe(true);
  });

  it('takes its sizes as options, and refuses sizes that cannot work', () => {
    const chunks = chunkText(paragraph(1, 20), { targetChars: 300, maxChars: 400, overlapChars: 50 });
    expect(chunks.every((chunk) => chunk.length <= 400)).toBe(true);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunkText(paragraph(1, 20), { overlapChars: 0 }).join(' ')).toBe(paragraph(1, 20));
    expect(() => chunkText('x', { targetChars: 500, maxChars: 400 })).toThrow(RangeError);
    expect(() => chunkDocument({ title: null, sections: [] }, { overlapChars: 500 })).toThrow(RangeError);
  });

  it('loses no word and invents none: chunks minus their overlaps give back the text', () => {
    // unique words, so an overlap (a repeated stretch) is unambiguous
    const text = fc.array(
      fc.tuple(fc.integer({ min: 1, max: 40 }), fc.constantFrom('. ', '? ', ', ', ' ', '\n', '\n\n')),
      {
        minLength: 1,
        maxLength: 120,
      },
    );
    fc.assert(
      fc.property(text, (parts) => {
        let counter = 0;
        const source = parts
          .map(([length, separator]) => {
            const words = Array.from({ length }, () => `w${counter++}`).join(' ');
            return `${words}${separator}`;
          })
          .join('');
        const chunks = chunkText(source);
        const seen = new Set<string>();
        const rebuilt: string[] = [];
        for (const chunk of chunks) {
          expect(chunk.length).toBeLessThanOrEqual(CHUNK_MAX_CHARS);
          for (const word of chunk.match(/w\d+/g) ?? []) {
            if (!seen.has(word)) rebuilt.push(word);
            seen.add(word);
          }
        }
        expect(rebuilt).toEqual(source.match(/w\d+/g) ?? []);
      }),
      { numRuns: 100, seed: 43 },
    );
  });
});
