import type { Knex } from 'knex';
import type { Owner } from '../common/owner';
import type { EmbeddingsConfig } from '../config/embeddings';
import {
  type ChunkRow,
  embedQuestion,
  fuseByRank,
  hasEmbeddingColumn,
  vectorSearch,
} from './hybrid-retrieval';
import { PRE_RANK_SQL, prefixQuery, queryParts, RANKED_CANDIDATES } from './search-query';

/** A chunk a turn retrieved: where it comes from, what it says, and how well it matched. */
export interface RetrievedChunk {
  baseId: string;
  sourceId: string;
  sourceName: string;
  ordinal: number;
  heading: string | null;
  text: string;
  score: number;
}

/** How many chunks each half of a hybrid search proposes for fusion, at least. */
const HYBRID_CANDIDATES = 20;

/**
 * The search of one text-search language over its bases (the same query as GET
 * /knowledge-bases/:id/search): the chunks matching the query, found through the GIN index alone
 * (`matches` is materialized, so stale statistics cannot turn it into a walk of every chunk), kept
 * at their source's current generation, the RANKED_CANDIDATES best by a cheap pre-rank
 * (src/knowledge/search-query.ts), ranked by ts_rank_cd.
 */
async function searchLanguage(knex: Knex, language: string, baseIds: string[], q: string, limit: number) {
  const { required, words } = queryParts(q);
  const prefix = prefixQuery(words);
  const { rows } = await knex.raw<{ rows: ChunkRow[] }>(
    `with query as (
       select websearch_to_tsquery(?::regconfig, ?) ||
              case when ? = '' then ''::tsquery
                   else websearch_to_tsquery(?::regconfig, ?) && to_tsquery(?::regconfig, ?) end as q,
              websearch_to_tsquery(?::regconfig, ?) as strict
     ), matches as materialized (
       select c.source_id, c.generation, c.ordinal, ${PRE_RANK_SQL} as pre
         from query, knowledge_chunks c
        where c.knowledge_base_id = any(?) and c.search @@ query.q
     ), candidates as (
       select m.source_id, m.generation, m.ordinal
         from matches m join knowledge_sources s on s.id = m.source_id and s.generation = m.generation
        order by m.pre desc, m.source_id, m.ordinal
        limit ?
     )
     select c.knowledge_base_id, c.source_id, s.name as source_name, c.ordinal, c.heading, c.text,
            ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', c.search, query.q, 1)::float8 as score
       from query, candidates k
       join knowledge_chunks c on c.source_id = k.source_id and c.generation = k.generation and c.ordinal = k.ordinal
       join knowledge_sources s on s.id = c.source_id
      order by score desc, c.source_id, c.ordinal
      limit ?`,
    [
      ...[language, q, prefix, language, required, language, prefix, language, q],
      ...[baseIds, Math.max(RANKED_CANDIDATES, limit), limit],
    ],
  );
  return rows;
}

/** The full-text half: each language's bases searched, the best `limit` by ts_rank_cd. */
async function fullTextSearch(
  knex: Knex,
  bases: { id: string; language: string }[],
  q: string,
  limit: number,
) {
  const byLanguage = new Map<string, string[]>();
  for (const b of bases) byLanguage.set(b.language, [...(byLanguage.get(b.language) ?? []), b.id]);
  const found = await Promise.all(
    [...byLanguage].map(([language, ids]) => searchLanguage(knex, language, ids, q, limit)),
  );
  return found
    .flat()
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

/** What a retrieval may use beside full-text search: the embeddings provider (then it is hybrid). */
export interface RetrievalOptions {
  embeddings?: EmbeddingsConfig;
  /** The question's vector when the caller has it already (bench:knowledge times the embedding apart). */
  questionVector?: number[];
}

/**
 * The `limit` chunks of the owner's bases `baseIds` that best match `q` (docs/knowledge.md "In a
 * turn"): every source at its current generation only, the best first. Full-text: each base searched
 * in its own language, ranked by ts_rank_cd. Hybrid, with `embeddings` and the `embedding` column:
 * the question is also embedded and its nearest chunks found, and both lists are fused by rank
 * (src/knowledge/hybrid-retrieval.ts; the score is then the fused one); when the provider fails or
 * is late the answer is the full-text one. Bases that are not the owner's, or no longer exist, are
 * left out.
 */
export async function retrieveChunks(
  knex: Knex,
  owner: Owner,
  baseIds: string[],
  q: string,
  limit: number,
  options: RetrievalOptions = {},
): Promise<RetrievedChunk[]> {
  if (!baseIds.length || !q.trim()) return [];
  const { embeddings } = options;
  // the question is embedded while its bases are read (hybrid: a null vector means full-text only)
  const questionVector = options.questionVector
    ? Promise.resolve(options.questionVector)
    : embeddings
      ? embedQuestion(knex, embeddings, q)
      : Promise.resolve(null);
  const bases: { id: string; language: string }[] = await knex('knowledge_bases')
    .select('id', 'language')
    .where({ account_id: owner.accountId, environment: owner.environment })
    .whereIn('id', baseIds);
  if (!bases.length) return [];
  const hybrid = Boolean(embeddings || options.questionVector);
  const candidates = hybrid ? Math.max(limit, HYBRID_CANDIDATES) : limit;
  const nearestChunks = async () => {
    const vector = await questionVector;
    if (!vector || !(await hasEmbeddingColumn(knex))) return null;
    return vectorSearch(
      knex,
      bases.map((b) => b.id),
      vector,
      candidates,
    );
  };
  const [fullText, nearest] = await Promise.all([
    fullTextSearch(knex, bases, q, candidates),
    nearestChunks(),
  ]);
  const rows = nearest ? fuseByRank([fullText, nearest], limit) : fullText.slice(0, limit);
  return rows.map((r) => ({
    baseId: r.knowledge_base_id,
    sourceId: r.source_id,
    sourceName: r.source_name,
    ordinal: r.ordinal,
    heading: r.heading,
    text: r.text,
    score: Number(r.score),
  }));
}
