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
 * The prefix half of a search: each plain word of the query (letters and digits only, so nothing in
 * it is tsquery syntax) as `word:*`, OR-ed: `refun` finds "refund" and "refunds". Its phrases and
 * excluded words still hold (AND-ed, as websearch_to_tsquery reads them). Empty when the query has
 * no plain word (then only the web-search half counts).
 */
export function prefixQuery(words: string[]): string {
  return words.map((w) => `${w}:*`).join(' | ');
}
