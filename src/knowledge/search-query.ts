/** The most words of a query turned into prefix terms. */
const MAX_PREFIX_WORDS = 20;

/** A query's parts: its "quoted phrases" and -excluded words (kept as they are), and its plain words. */
export function queryParts(q: string): { required: string; words: string[] } {
  const required: string[] = [];
  const rest = q.replace(/"[^"]*"?|(?<=^|\s)-\S+/g, (part) => {
    required.push(part);
    return ' ';
  });
  const words = (rest.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 2);
  return { required: required.join(' '), words: [...new Set(words)].slice(0, MAX_PREFIX_WORDS) };
}

/**
 * How many chunks of a full-text search are ranked by ts_rank_cd: the best by the pre-rank
 * (PRE_RANK_SQL). Ranking is the search's main cost (it reads each match's
 * positions), so a common word matching thousands of chunks costs no more than a hundred.
 */
export const RANKED_CANDIDATES = 100;

/**
 * The SQL of a match's pre-rank, over the `query` CTE's `strict` (the web-search query) and `q`
 * (its words as prefixes too): a strict match first, then ts_rank over `q`, which grows with each
 * distinct word matched (an occurrence more of one word adds less each time) and counts a heading
 * (weight A) above the text. One function call per match: the pre-rank reads each match's
 * positions once.
 */
export const PRE_RANK_SQL =
  "(c.search @@ query.strict)::int * 100 + ts_rank('{0.1, 0.2, 0.4, 1.0}', c.search, query.q)";

/**
 * The prefix half of a search: each plain word of the query (letters and digits only, so nothing in
 * it is tsquery syntax) as `word:*`, OR-ed: `refun` finds "refund" and "refunds". Its phrases and
 * excluded words still hold (AND-ed, as websearch_to_tsquery reads them). Empty when the query has
 * no plain word (then only the web-search half counts).
 */
export function prefixQuery(words: string[]): string {
  return words.map((w) => `${w}:*`).join(' | ');
}
