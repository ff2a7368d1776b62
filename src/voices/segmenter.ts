/**
 * Cuts a reply's text, as it streams in, into segments to synthesize one by one: the first early (the
 * caller hears something soon), the others at sentence ends. Pure: no I/O, no timers.
 *
 * A cut is made only at whitespace, after a sentence end (`. ! ? …`, closing quotes or brackets
 * included), a clause mark (`, ; : — –` or a lone `-`) or at a line break. So a number (3.5, 1,000), a
 * URL or an email address is never cut: its punctuation is followed by more of it, not by whitespace.
 * Whether a cut is made depends only on the text up to that whitespace, which is why the segments are
 * the same however the text is split into deltas, and why the tail is held back until the character
 * after it has arrived ("3." may become "3.5").
 */

/** The first segment ends at the first clause mark once it holds this many words (or at a sentence end). */
export const FIRST_SEGMENT_MIN_WORDS = 3;
/** Later segments end at sentence ends, or at a clause mark once they are this many characters long. */
export const LONG_SEGMENT_CHARS = 150;
/** Past this many characters without a cut, a segment is cut at the last whitespace within it. */
export const MAX_SEGMENT_CHARS = 250;

/** Words (lowercase, without the final dot) whose dot does not end a sentence. */
export const ABBREVIATIONS: ReadonlySet<string> = new Set(
  (
    'mr mrs ms dr st jr sr prof rev hon gen col capt lt sgt gov sen rep vs etc approx dept est fig vol ' +
    'ch pp inc ltd co corp mt ave blvd rd jan feb mar apr jun jul aug sep sept oct nov dec e.g i.e'
  ).split(' '),
);

const SENTENCE_MARK = /[.!?…]/;
const CLAUSE_MARK = /[,;:—–]/;
const CLOSERS = /["'”’»)\]}]/;
const OPENERS = /^["'“‘«([{]+/;
const WHITESPACE = /\s/;
const SPEAKABLE = /[\p{L}\p{N}]/u;
/** Dotted abbreviations: `e.g`, `U.S`, `a.m`, `Ph.D`. */
const DOTTED = /^(\p{L}{1,2}\.)+\p{L}{1,2}$/u;
/** An initial, as in `John F. Kennedy` (not `I` or `A`, which end sentences: "So do I."). */
const isInitial = (word: string) => /^\p{Lu}$/u.test(word) && word !== 'A' && word !== 'I';

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();
const wordCount = (text: string) => text.split(/\s+/).filter((word) => SPEAKABLE.test(word)).length;

/**
 * True when the dot at `dot` (a lone one, not part of `...` or `?.`) ends a sentence: not after an
 * abbreviation or an initial, and not a list's number at the start of a segment (`2. Tap Orders`).
 */
function dotEndsSentence(text: string, dot: number): boolean {
  let start = dot;
  while (start > 0 && !WHITESPACE.test(text[start - 1])) start--;
  const word = text.slice(start, dot).replace(OPENERS, '');
  if (ABBREVIATIONS.has(word.toLowerCase()) || DOTTED.test(word) || isInitial(word)) return false;
  return !(start === 0 && /^\d+$/.test(word));
}

export class SpeechSegmenter {
  /** Text not yet in a segment; it never starts with whitespace. */
  private pending = '';
  /** The next position of `pending` to judge as a cut: the ones before it are known not to be cuts. */
  private scanned = 1;
  private first = true;

  /** Adds the next piece of the reply; answers the segments it completes, in order (often none). */
  push(delta: string): string[] {
    this.pending += delta;
    if (WHITESPACE.test(this.pending[0] ?? '')) this.pending = this.pending.trimStart();
    const segments: string[] = [];
    for (let cut = this.nextCut(); cut !== undefined; cut = this.nextCut()) segments.push(this.take(cut));
    return segments;
  }

  /**
   * Ends the reply: answers what is left as a last segment, unless it has nothing to speak (only
   * punctuation, say: its neighbour has been given out already). Then starts over for a new reply.
   */
  flush(): string[] {
    const rest = normalize(this.pending);
    this.pending = '';
    this.scanned = 1;
    this.first = true;
    return SPEAKABLE.test(rest) ? [rest] : [];
  }

  /** Where the next segment ends in `pending` (exclusive), once that is certain. */
  private nextCut(): number | undefined {
    const text = this.pending;
    const last = Math.min(text.length - 1, MAX_SEGMENT_CHARS);
    for (; this.scanned <= last; this.scanned++) {
      if (this.isCut(text, this.scanned)) return this.scanned;
    }
    return text.length > MAX_SEGMENT_CHARS ? this.hardCut(text) : undefined;
  }

  /** Whether the segment ends before the whitespace at `at`, judged on `text[0..at]` alone. */
  private isCut(text: string, at: number): boolean {
    if (!WHITESPACE.test(text[at])) return false;
    const segment = text.slice(0, at);
    if (!SPEAKABLE.test(segment)) return false; // punctuation only: it joins the next segment
    if (text[at] === '\n') return true;
    if (WHITESPACE.test(text[at - 1])) return false;
    let mark = at - 1;
    while (mark > 0 && CLOSERS.test(text[mark])) mark--;
    const char = text[mark];
    if (SENTENCE_MARK.test(char)) {
      const lone = char === '.' && !SENTENCE_MARK.test(text[mark - 1] ?? '');
      return !lone || dotEndsSentence(text, mark);
    }
    const clause =
      CLAUSE_MARK.test(char) || (char === '-' && mark === at - 1 && WHITESPACE.test(text[mark - 1] ?? ''));
    if (!clause) return false;
    return at >= LONG_SEGMENT_CHARS || (this.first && wordCount(segment) >= FIRST_SEGMENT_MIN_WORDS);
  }

  /**
   * A segment past MAX_SEGMENT_CHARS with no cut: at the last whitespace within the limit, or (one word
   * longer than that) the first after it; never before text with nothing to speak.
   */
  private hardCut(text: string): number | undefined {
    let at = MAX_SEGMENT_CHARS;
    while (at > 0 && !WHITESPACE.test(text[at])) at--;
    if (at > 0 && SPEAKABLE.test(text.slice(0, at))) return at;
    for (at = MAX_SEGMENT_CHARS + 1; at < text.length; at++) {
      if (WHITESPACE.test(text[at]) && SPEAKABLE.test(text.slice(0, at))) return at;
    }
    return undefined;
  }

  private take(cut: number): string {
    const segment = normalize(this.pending.slice(0, cut));
    this.pending = this.pending.slice(cut).trimStart();
    this.scanned = 1;
    this.first = false;
    return segment;
  }
}
