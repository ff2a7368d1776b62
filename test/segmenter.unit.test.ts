import {
  FIRST_SEGMENT_MIN_WORDS,
  LONG_SEGMENT_CHARS,
  MAX_SEGMENT_CHARS,
  SpeechSegmenter,
} from '../src/voices/segmenter';

/** The segments of `text` fed whole, then flushed. */
function segmentsOf(text: string): string[] {
  const segmenter = new SpeechSegmenter();
  return [...segmenter.push(text), ...segmenter.flush()];
}

/** The segments of `text` fed in pieces of the given sizes (cycled), then flushed. */
function segmentsInPieces(text: string, sizes: () => number): string[] {
  const segmenter = new SpeechSegmenter();
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = Math.max(1, sizes());
    out.push(...segmenter.push(text.slice(at, at + size)));
    at += size;
  }
  return [...out, ...segmenter.flush()];
}

/** A small seeded generator (mulberry32), so a failure names the seed that made it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Replies a model could stream, each with something the segmenter must not break. */
const REPLIES = [
  'Sure thing, I can help you with that order today. It ships Monday.',
  'Well, let me see, your order shipped yesterday, and it should arrive soon. Anything else?',
  'It costs 3.5 dollars, or 1,000 cents in total. The rate is 0.25% per day.',
  'Dr. Smith and Mrs. Jones met Mr. Brown on Main St. at noon, e.g. for lunch, i.e. a meal, etc. and more vs. less. Done.',
  'Visit https://example.com/a,b;c?d=1.5&e=f. or mail help@shop.example.com, please. Thanks!',
  'Hello there! ... !!! How are you?',
  'Steps:\n1. Open the app.\n2. Tap Orders.\n3. Pick the parcel, then tap Track.',
  'He said "Hi there." Then he left. So do I. John F. Kennedy was here. It is OK. Go.',
  'I checked your order — it shipped yesterday — and it arrives Friday. Wait… really?! Yes.',
  '  Leading and   trailing   whitespace, with tabs\tand newlines\n\n inside it.  ',
  `${'This is a long winded sentence that keeps going and going without any real reason to stop '.repeat(3)}and then, finally, it ends. A short one.`,
  `${'word '.repeat(120)}end.`,
  'Call us at 555-0100 - or email us - any time between 9:30 a.m. and 5 p.m. tomorrow. Bye.',
];

describe('SpeechSegmenter', () => {
  it('exports sensible thresholds', () => {
    expect(FIRST_SEGMENT_MIN_WORDS).toBe(3);
    expect(LONG_SEGMENT_CHARS).toBe(150);
    expect(MAX_SEGMENT_CHARS).toBe(250);
  });

  it('cuts the first segment at the first clause mark once it holds enough words', () => {
    expect(
      segmentsOf('Well, let me see, your order shipped yesterday, and it should arrive soon. Anything else?'),
    ).toEqual([
      'Well, let me see,',
      'your order shipped yesterday, and it should arrive soon.',
      'Anything else?',
    ]);
    // too few words before the comma: the sentence end comes first
    expect(segmentsOf('Sure thing, I can help you with that. It ships Monday.')).toEqual([
      'Sure thing, I can help you with that.',
      'It ships Monday.',
    ]);
    expect(segmentsOf('Okay; so here is what we do: we wait.')).toEqual([
      'Okay; so here is what we do:',
      'we wait.',
    ]);
    expect(segmentsOf('I checked your order — it shipped yesterday — and it arrives Friday.')).toEqual([
      'I checked your order —',
      'it shipped yesterday — and it arrives Friday.',
    ]);
    expect(segmentsOf('We can do it – one more thing – tomorrow.')).toEqual([
      'We can do it –',
      'one more thing – tomorrow.',
    ]);
    expect(segmentsOf('Call us now - or email - any time.')).toEqual([
      'Call us now -',
      'or email - any time.',
    ]);
  });

  it('cuts the first segment at a sentence end, however short', () => {
    expect(segmentsOf('Sure! Let me check, one moment, please.')).toEqual([
      'Sure!',
      'Let me check, one moment, please.',
    ]);
    expect(segmentsOf('Hi. Hello.')).toEqual(['Hi.', 'Hello.']);
  });

  it('cuts later segments at sentence ends, not at short clauses', () => {
    expect(segmentsOf('Yes. One, two, three, four. Really? Wow! Wait… what.')).toEqual([
      'Yes.',
      'One, two, three, four.',
      'Really?',
      'Wow!',
      'Wait…',
      'what.',
    ]);
    expect(segmentsOf('First. He said "Hi there." Then (he left.) Fine?! Yes...')).toEqual([
      'First.',
      'He said "Hi there."',
      'Then (he left.)',
      'Fine?!',
      'Yes...',
    ]);
  });

  it('cuts a long later segment at a clause mark past LONG_SEGMENT_CHARS', () => {
    const head = 'This part of the answer runs on and on about the parcel and the shop and the weather';
    const clauses = `${head}, and the courier, and the route they took, and more about it,`;
    expect(clauses.length).toBeLessThan(LONG_SEGMENT_CHARS); // its commas are all too early
    const long = `${clauses} and even more words here,`;
    expect(long.length).toBeGreaterThanOrEqual(LONG_SEGMENT_CHARS);
    expect(segmentsOf(`Okay. ${long} and the end. Done.`)).toEqual(['Okay.', long, 'and the end.', 'Done.']);
  });

  it('cuts hard at whitespace past MAX_SEGMENT_CHARS, never inside a word', () => {
    const text = `Okay. ${'word '.repeat(200)}end.`;
    const segments = segmentsOf(text);
    expect(segments.length).toBeGreaterThan(3);
    for (const s of segments) {
      expect(s.length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS);
      expect(s.split(' ').every((w) => ['Okay.', 'word', 'end.'].includes(w))).toBe(true);
    }
    expect(segments.join(' ')).toBe(normalized(text));
    // a single word longer than the limit stays whole
    const url = `https://example.com/${'a'.repeat(300)}`;
    expect(segmentsOf(`Okay. See ${url} for it`)).toEqual(['Okay.', 'See', url, 'for it']);
  });

  it('never cuts inside a number, a URL or an email address', () => {
    expect(segmentsOf('The total is 3.5 dollars and 1,000 cents, at 9:30 today. Next.')).toEqual([
      'The total is 3.5 dollars and 1,000 cents,',
      'at 9:30 today.',
      'Next.',
    ]);
    const segments = segmentsOf(
      'Visit https://example.com/a,b;c?d=1.5&e=f!g or mail help@shop.example.com, please. Thanks!',
    );
    expect(segments).toEqual([
      'Visit https://example.com/a,b;c?d=1.5&e=f!g or mail help@shop.example.com,',
      'please.',
      'Thanks!',
    ]);
    // a sentence may end right after one
    expect(segmentsOf('Go to https://example.com/help. Then sign in.')).toEqual([
      'Go to https://example.com/help.',
      'Then sign in.',
    ]);
  });

  it('never cuts after an abbreviation, an initial or a list number', () => {
    expect(
      segmentsOf(
        'Okay. Dr. Smith and Mrs. Jones met Mr. Brown on Main St. at noon, e.g. for lunch, i.e. a meal, etc. and more vs. less. Done.',
      ),
    ).toEqual([
      'Okay.',
      'Dr. Smith and Mrs. Jones met Mr. Brown on Main St. at noon, e.g. for lunch, i.e. a meal, etc. and more vs. less.',
      'Done.',
    ]);
    expect(
      segmentsOf('Okay. John F. Kennedy flew to the U.S. at 5 p.m. on a plane. So do I. It is OK.'),
    ).toEqual(['Okay.', 'John F. Kennedy flew to the U.S. at 5 p.m. on a plane.', 'So do I.', 'It is OK.']);
    expect(segmentsOf('Steps:\n1. Open the app.\n2. Tap Orders.')).toEqual([
      'Steps:',
      '1. Open the app.',
      '2. Tap Orders.',
    ]);
    // a number ending a sentence is a sentence end
    expect(segmentsOf('The answer is 42. Anything else?')).toEqual(['The answer is 42.', 'Anything else?']);
  });

  it('cuts at line breaks', () => {
    expect(segmentsOf('Here is the plan\nFirst step  \n\nSecond step')).toEqual([
      'Here is the plan',
      'First step',
      'Second step',
    ]);
  });

  it('trims whitespace and never gives out an empty or punctuation-only segment', () => {
    expect(segmentsOf('  Hello   there.   \n Bye.  ')).toEqual(['Hello there.', 'Bye.']);
    expect(segmentsOf('Hello there! ... !!! How are you?')).toEqual(['Hello there!', '... !!! How are you?']);
    expect(segmentsOf('... Hello.')).toEqual(['... Hello.']);
    expect(segmentsOf('Okay. ...')).toEqual(['Okay.']);
    expect(segmentsOf('— , ; !')).toEqual([]);
    expect(segmentsOf('   ')).toEqual([]);
    expect(segmentsOf('')).toEqual([]);
    for (const reply of REPLIES) {
      for (const s of segmentsOf(reply)) {
        expect(s).toBe(normalized(s));
        expect(s).toMatch(/[\p{L}\p{N}]/u);
      }
    }
  });

  it('holds the tail back until the next character says whether it is a cut', () => {
    const s = new SpeechSegmenter();
    expect(s.push('The total is 3.')).toEqual([]); // 3.5, or the end of a sentence?
    expect(s.push('5 dollars. And')).toEqual(['The total is 3.5 dollars.']);
    expect(s.push(' more, please.')).toEqual([]);
    expect(s.flush()).toEqual(['And more, please.']);

    const t = new SpeechSegmenter();
    expect(t.push('The total is 3.')).toEqual([]);
    expect(t.push(' ')).toEqual(['The total is 3.']);
    expect(t.push('Thanks')).toEqual([]);
    expect(t.flush()).toEqual(['Thanks']);

    const u = new SpeechSegmenter();
    expect(u.push('Sure')).toEqual([]);
    expect(u.push('!')).toEqual([]);
    expect(u.push(' Let me look')).toEqual(['Sure!']);
    expect(u.push('...')).toEqual([]);
    expect(u.flush()).toEqual(['Let me look...']);
  });

  it('gives out several segments from one delta, and starts over after flush', () => {
    const s = new SpeechSegmenter();
    expect(s.push('One. Two. Three')).toEqual(['One.', 'Two.']);
    expect(s.flush()).toEqual(['Three']);
    expect(s.flush()).toEqual([]);
    // a new reply: the first segment's early cut applies again
    expect(s.push('Well, let me see, okay. ')).toEqual(['Well, let me see,', 'okay.']);
    expect(s.flush()).toEqual([]);
  });

  it('gives the same segments fed one character at a time, or in random pieces, as fed whole', () => {
    for (const reply of REPLIES) {
      const whole = segmentsOf(reply);
      expect(segmentsInPieces(reply, () => 1)).toEqual(whole);
      for (let seed = 1; seed <= 25; seed++) {
        const next = random(seed * 7919 + reply.length);
        const pieces = segmentsInPieces(reply, () => 1 + Math.floor(next() * 12));
        if (JSON.stringify(pieces) !== JSON.stringify(whole)) throw new Error(`seed ${seed}: ${reply}`);
      }
    }
  });

  it('reproduces the text when its segments are joined with spaces', () => {
    for (const reply of REPLIES) expect(segmentsOf(reply).join(' ')).toBe(normalized(reply));
  });

  it('holds its rules on generated replies (any pieces, joined text, lengths)', () => {
    const words = (
      'the parcel Dr. Mrs. e.g. i.e. etc. vs. 3.5 1,000 9:30 U.S. https://shop.example.com/a?b=1.5,c ' +
      'help@shop.example.com — - "quoted" (aside) ships today F. okay 42 … ... !! Orders tracking we can'
    ).split(' ');
    const ends = ['.', '!', '?', '…', ',', ';', ':', '', '', '', '.\n', '?"', '.)'];
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
      const parts: string[] = [];
      for (let n = 5 + Math.floor(next() * 120); n > 0; n--) parts.push(pick(words) + pick(ends));
      const reply = `${parts.join(next() < 0.9 ? ' ' : '  ')} done.`;
      const whole = segmentsOf(reply);
      const pieces = segmentsInPieces(reply, () => 1 + Math.floor(next() * 20));
      if (JSON.stringify(pieces) !== JSON.stringify(whole)) throw new Error(`seed ${seed}: ${reply}`);
      expect(whole.join(' ')).toBe(normalized(reply));
      const longestWord = Math.max(...reply.split(/\s+/).map((w) => w.length));
      for (const s of whole) {
        expect(s).toMatch(/[\p{L}\p{N}]/u);
        expect(s.length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS + longestWord + 1);
      }
    }
  });
});
