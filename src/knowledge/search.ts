import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { findKnowledgeBase } from './knowledge-bases.service';

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

interface HitRow {
  source_id: string;
  source_name: string;
  heading: string | null;
  text: string;
  score: number;
}

/**
 * GET /knowledge-bases/:id/search: the base's current chunks (each source's current generation only,
 * so a refresh under way never shows a mix) matching `websearch_to_tsquery` (words, "phrases", -not)
 * OR the words as prefixes, ranked by `ts_rank_cd` (cover density: matches close together rank
 * higher; headings weigh more than text), best first.
 */
export async function searchKnowledgeBase(
  em: EntityManager,
  owner: Owner,
  id: string,
  q: string,
  limit: number,
) {
  const base = await findKnowledgeBase(em, owner, id);
  const { required, words } = queryParts(q);
  const prefix = prefixQuery(words);
  const { rows } = await em
    .getConnection()
    .getKnex()
    .raw<{ rows: HitRow[] }>(
      `with query as (
       select websearch_to_tsquery(?::regconfig, ?) ||
              case when ? = '' then ''::tsquery
                   else websearch_to_tsquery(?::regconfig, ?) && to_tsquery(?::regconfig, ?) end as q
     )
     select c.source_id, s.name as source_name, c.heading, c.text,
            ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', c.search, query.q, 1)::float8 as score
       from query, knowledge_chunks c
       join knowledge_sources s on s.id = c.source_id and s.generation = c.generation
      where c.knowledge_base_id = ? and c.search @@ query.q
      order by score desc, c.source_id, c.ordinal
      limit ?`,
      [base.language, q, prefix, base.language, required, base.language, prefix, base.id, limit],
    );
  return rows.map((r) => ({
    sourceId: r.source_id,
    sourceName: r.source_name,
    heading: r.heading,
    text: r.text,
    score: Number(r.score),
  }));
}
