/**
 * Picks the workflow a spoken utterance asks for, by comparing it with each `voice_command`.
 *
 * Both texts are normalised (lower case, accents and punctuation removed, whitespace collapsed,
 * filler words such as "please", "can you", "the" dropped). Words match when equal or nearly so
 * (character-bigram Dice similarity ≥ 0.8: "orders" ~ "order", "cancel" ~ "cancell"). With
 * recall = matched command words / command words and precision = matched utterance words /
 * utterance words, the score is the recall-weighted F2 = 5PR / (4P + R), between 0 and 1: saying the
 * whole command in a longer sentence still scores high, and a longer command that is fully said beats
 * a shorter one it contains. A score below MATCH_THRESHOLD (0.5) is no match; equal best scores
 * (within 0.001) are a tie. A command's placeholders (`{orderId}`) are not words to match: the words
 * said in their place (up to PLACEHOLDER_WORDS each) do not lower the precision.
 */

export const MATCH_THRESHOLD = 0.5;
const TIE_EPSILON = 0.001;
const WORD_SIMILARITY = 0.8;
/** How many unmatched words of an utterance each placeholder of the command may stand for. */
export const PLACEHOLDER_WORDS = 3;
/** A placeholder in a command: anything in braces (command-parameters.ts says which are valid). */
const PLACEHOLDER = /\{[^{}]*\}/g;

/** A command's text without its placeholders. */
export const commandWithoutPlaceholders = (command: string) => command.replace(PLACEHOLDER, ' ');

const FILLERS = new Set([
  'a',
  'an',
  'the',
  'please',
  'can',
  'could',
  'would',
  'you',
  'i',
  'me',
  'my',
  'to',
  'for',
  'want',
  'wanna',
  'like',
  'id',
  'hey',
  'ok',
  'okay',
  'just',
  'some',
  'of',
  'is',
  'it',
  'let',
  'lets',
  'us',
  'do',
  'will',
  'need',
  'thanks',
  'thank',
  'now',
  'um',
  'uh',
]);

/** A word dropped before matching ("please", "can", "my", …). */
export const isFiller = (word: string) => FILLERS.has(word);

export function normalizeUtterance(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  const meaningful = words.filter((w) => !FILLERS.has(w));
  return meaningful.length > 0 ? meaningful : words;
}

function bigrams(word: string): string[] {
  if (word.length < 2) return [word];
  const out: string[] = [];
  for (let i = 0; i < word.length - 1; i++) out.push(word.slice(i, i + 2));
  return out;
}

/** Sørensen–Dice similarity of two words' character bigrams (1 for equal words). */
export function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const x = bigrams(a);
  const y = bigrams(b);
  const counts = new Map<string, number>();
  for (const g of x) counts.set(g, (counts.get(g) ?? 0) + 1);
  let shared = 0;
  for (const g of y) {
    const n = counts.get(g) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(g, n - 1);
    }
  }
  return (2 * shared) / (x.length + y.length);
}

/** How well an utterance matches a command, 0 to 1 (see above). */
export function commandScore(utterance: string, command: string): number {
  const said = normalizeUtterance(utterance);
  const wanted = normalizeUtterance(commandWithoutPlaceholders(command));
  const slots = command.match(PLACEHOLDER)?.length ?? 0;
  if (said.length === 0 || wanted.length === 0) return 0;
  const used = new Set<number>();
  let matched = 0;
  for (const word of wanted) {
    let best = -1;
    let bestScore = WORD_SIMILARITY;
    said.forEach((w, i) => {
      if (used.has(i)) return;
      const s = wordSimilarity(word, w);
      if (s >= bestScore) {
        best = i;
        bestScore = s;
      }
    });
    if (best >= 0) {
      used.add(best);
      matched++;
    }
  }
  if (matched === 0) return 0;
  const recall = matched / wanted.length;
  const excused = Math.min(said.length - matched, slots * PLACEHOLDER_WORDS);
  const precision = matched / (said.length - excused);
  return Math.round(((5 * precision * recall) / (4 * precision + recall)) * 1000) / 1000;
}

export interface Candidate<T> {
  item: T;
  command: string;
  score: number;
}

export type MatchOutcome<T> =
  | { kind: 'match'; best: Candidate<T> }
  | { kind: 'none'; candidates: Candidate<T>[] }
  | { kind: 'tie'; tied: Candidate<T>[] };

/** The best command for an utterance: a match, a tie between the best, or none (closest listed). */
export function matchCommand<T>(
  utterance: string,
  commands: { item: T; command: string }[],
  threshold = MATCH_THRESHOLD,
): MatchOutcome<T> {
  const ranked = commands
    .map((c) => ({ ...c, score: commandScore(utterance, c.command) }))
    .sort((a, b) => b.score - a.score);
  const best = ranked[0];
  if (!best || best.score < threshold) return { kind: 'none', candidates: ranked.slice(0, 3) };
  const tied = ranked.filter((c) => best.score - c.score < TIE_EPSILON);
  return tied.length > 1 ? { kind: 'tie', tied } : { kind: 'match', best };
}
