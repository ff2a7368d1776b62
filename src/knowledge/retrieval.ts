import type { Knex } from 'knex';
import type { Owner } from '../common/owner';
import { prefixQuery, queryParts } from './search-query';

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

interface ChunkRow {
  knowledge_base_id: string;
  source_id: string;
  source_name: string;
  ordinal: number;
  heading: string | null;
  text: string;
  score: number;
}

/** The search of one text-search language over its bases (the same query as GET /knowledge-bases/:id/search). */
async function searchLanguage(knex: Knex, language: string, baseIds: string[], q: string, limit: number) {
  const { required, words } = queryParts(q);
  const prefix = prefixQuery(words);
  const { rows } = await knex.raw<{ rows: ChunkRow[] }>(
    `with query as (
       select websearch_to_tsquery(?::regconfig, ?) ||
              case when ? = '' then ''::tsquery
                   else websearch_to_tsquery(?::regconfig, ?) && to_tsquery(?::regconfig, ?) end as q
     )
     select c.knowledge_base_id, c.source_id, s.name as source_name, c.ordinal, c.heading, c.text,
            ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', c.search, query.q, 1)::float8 as score
       from query, knowledge_chunks c
       join knowledge_sources s on s.id = c.source_id and s.generation = c.generation
      where c.knowledge_base_id = any(?) and c.search @@ query.q
      order by score desc, c.source_id, c.ordinal
      limit ?`,
    [language, q, prefix, language, required, language, prefix, baseIds, limit],
  );
  return rows;
}

/**
 * The `limit` chunks of the owner's bases `baseIds` that best match `q` (docs/knowledge.md "In a
 * turn"): each base searched in its own language, every source at its current generation only, the
 * best first. Bases that are not the owner's, or no longer exist, are left out.
 */
export async function retrieveChunks(
  knex: Knex,
  owner: Owner,
  baseIds: string[],
  q: string,
  limit: number,
): Promise<RetrievedChunk[]> {
  if (!baseIds.length || !q.trim()) return [];
  const bases: { id: string; language: string }[] = await knex('knowledge_bases')
    .select('id', 'language')
    .where({ account_id: owner.accountId, environment: owner.environment })
    .whereIn('id', baseIds);
  const byLanguage = new Map<string, string[]>();
  for (const b of bases) byLanguage.set(b.language, [...(byLanguage.get(b.language) ?? []), b.id]);
  const found = await Promise.all(
    [...byLanguage].map(([language, ids]) => searchLanguage(knex, language, ids, q, limit)),
  );
  return found
    .flat()
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((r) => ({
      baseId: r.knowledge_base_id,
      sourceId: r.source_id,
      sourceName: r.source_name,
      ordinal: r.ordinal,
      heading: r.heading,
      text: r.text,
      score: Number(r.score),
    }));
}
