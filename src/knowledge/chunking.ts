import { normalizeText } from './extract/normalize';
import type { ExtractedDocument, ExtractedSection } from './extract/types';

/**
 * Splits an extracted document into retrieval chunks: by heading sections first, then paragraphs, then
 * sentences for a paragraph too long to stay whole (then words, for a "sentence" with no end, such as a
 * long table row). Consecutive chunks of one section overlap a little, so a fact cut at a boundary is
 * whole in one of them; chunks never span two sections. Pure and deterministic: the same document and
 * options give the same chunks (sentence boundaries come from ICU, fixed per Node.js version).
 */

/**
 * The length a chunk grows to, in characters (about 200 tokens): long enough to hold a fact with its
 * context, short enough that the few best chunks of a turn fit a voice agent's prompt.
 */
export const CHUNK_TARGET_CHARS = 800;
/**
 * No chunk is longer (about 300 tokens). A chunk under half the target may grow past the target up to
 * here to take a whole paragraph, rather than leave a scrap behind.
 */
export const CHUNK_MAX_CHARS = 1_200;
/**
 * How much of a chunk's end the next chunk of the same section starts with: its last sentences that fit,
 * else its last words (between a third of this and this much).
 */
export const CHUNK_OVERLAP_CHARS = 150;
/** Characters per token for `tokenEstimate`: a rough figure for English text with common tokenizers. */
export const CHARS_PER_TOKEN = 4;
/** Joins the headings of a chunk's heading path: `Returns > Refunds`. */
export const HEADING_PATH_SEPARATOR = ' > ';

export interface Chunk {
  /** 0, 1, 2… in document order. */
  ordinal: number;
  /** The path of headings the chunk lies under (`Returns > Refunds`); null before the first heading. */
  heading: string | null;
  /** Normalised text, never empty. */
  text: string;
  /** About how many tokens `text` is (length / CHARS_PER_TOKEN, rounded up). */
  tokenEstimate: number;
}

export interface ChunkOptions {
  targetChars?: number;
  maxChars?: number;
  overlapChars?: number;
}

interface Sizes {
  target: number;
  max: number;
  overlap: number;
  /** The longest piece (paragraph, sentence or word run) put in a chunk: it fits after any overlap. */
  maxPiece: number;
}

/** A paragraph, or a part of one, and what joins it to the piece before it. */
interface Piece {
  text: string;
  joiner: string;
}

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

function sizesOf(options: ChunkOptions): Sizes {
  const target = options.targetChars ?? CHUNK_TARGET_CHARS;
  const max = options.maxChars ?? CHUNK_MAX_CHARS;
  const overlap = options.overlapChars ?? CHUNK_OVERLAP_CHARS;
  if (!(target > 0 && max >= target && overlap >= 0 && overlap * 2 <= target)) {
    throw new RangeError(
      'chunk sizes need 0 < targetChars <= maxChars and 0 <= overlapChars <= targetChars / 2',
    );
  }
  return { target, max, overlap, maxPiece: max - overlap - 2 };
}

/**
 * Cuts text over `limit` characters at its last whitespace within the limit, or anywhere when there is
 * none (a URL, a base64 blob): then the parts join with nothing, as they were.
 */
function splitAtWords(text: string, limit: number, joiner: string): Piece[] {
  const parts: Piece[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = Math.max(rest.lastIndexOf(' ', limit), rest.lastIndexOf('\n', limit));
    const atSpace = cut > 0;
    if (!atSpace) cut = /[\uD800-\uDBFF]/.test(rest[limit - 1]) ? limit - 1 : limit; // not inside a surrogate pair
    parts.push({ text: rest.slice(0, cut).trim(), joiner });
    joiner = atSpace ? rest[cut] : '';
    rest = rest.slice(cut).trim();
  }
  if (rest) parts.push({ text: rest, joiner });
  return parts;
}

/** A section's text as pieces no longer than `maxPiece`: whole paragraphs where they fit. */
function piecesOf(text: string, maxPiece: number): Piece[] {
  const pieces: Piece[] = [];
  for (const paragraph of text.split(/\n{2,}/)) {
    if (paragraph.length <= maxPiece) {
      pieces.push({ text: paragraph, joiner: '\n\n' });
      continue;
    }
    let joiner = '\n\n';
    for (const { segment } of sentences.segment(paragraph)) {
      const parts = splitAtWords(segment.trim(), maxPiece, joiner).filter((part) => part.text);
      pieces.push(...parts);
      if (parts.length > 0) joiner = /\n\s*$/.test(segment) ? '\n' : ' ';
    }
  }
  return pieces;
}

/** The end of a chunk that the next one repeats: its last sentences within `size`, else its last words. */
function overlapOf(text: string, size: number): string {
  if (size === 0) return '';
  if (text.length <= size) return text;
  const window = text.slice(-size);
  if (/\s/.test(text[text.length - size - 1])) return window.trim();
  const [, second] = sentences.segment(window);
  if (second && window.length - second.index >= size / 3) return window.slice(second.index).trim();
  const space = window.search(/\s/);
  return space >= 0 ? window.slice(space).trim() : window;
}

/** One section's text as chunk texts: pieces packed up to the target, each chunk after the first overlapping. */
export function chunkText(text: string, options: ChunkOptions = {}): string[] {
  const sizes = sizesOf(options);
  const chunks: string[] = [];
  let current = '';
  for (const piece of piecesOf(normalizeText(text), sizes.maxPiece)) {
    const grown = current ? `${current}${piece.joiner}${piece.text}` : piece.text;
    const small = current.length < sizes.target / 2;
    if (!current || grown.length <= sizes.target || (small && grown.length <= sizes.max)) {
      current = grown;
      continue;
    }
    chunks.push(current);
    const overlap = overlapOf(current, sizes.overlap);
    current = overlap ? `${overlap}${piece.joiner}${piece.text}` : piece.text;
  }
  if (current) chunks.push(current);
  return chunks;
}

/** Keeps the path of open headings: a heading closes every open heading of its level or deeper. */
function headingPathAfter(path: ExtractedSection[], section: ExtractedSection): string | null {
  if (section.heading !== null) {
    while (path.length > 0 && path[path.length - 1].level >= section.level) path.pop();
    path.push(section);
  }
  return path.length > 0 ? path.map((open) => open.heading).join(HEADING_PATH_SEPARATOR) : null;
}

/**
 * A document's chunks, in order. Each carries its heading path; sections without text (a heading followed
 * at once by a subheading) add to the path but make no chunk.
 */
export function chunkDocument(document: ExtractedDocument, options: ChunkOptions = {}): Chunk[] {
  sizesOf(options); // refuse bad sizes even for a document without text
  const chunks: Chunk[] = [];
  const path: ExtractedSection[] = [];
  for (const section of document.sections) {
    const heading = headingPathAfter(path, section);
    for (const text of chunkText(section.text, options)) {
      chunks.push({
        ordinal: chunks.length,
        heading,
        text,
        tokenEstimate: Math.ceil(text.length / CHARS_PER_TOKEN),
      });
    }
  }
  return chunks;
}
