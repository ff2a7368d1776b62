import type { Knex } from 'knex';
import type { EmbeddingsConfig } from '../config/embeddings';
import { embedTexts, vectorLiteral } from './embeddings';

/** A chunk row as a search answers it (full-text or vector), before it becomes a RetrievedChunk. */
export interface ChunkRow {
  knowledge_base_id: string;
  source_id: string;
  source_name: string;
  ordinal: number;
  heading: string | null;
  text: string;
  score: number;
}

/** Reciprocal Rank Fusion's constant: a chunk's fused score is the sum of 1 / (RRF_K + rank). */
export const RRF_K = 60;

/** Whether `knowledge_chunks.embedding` exists (the migration adds it only with pgvector), per connection pool. */
const embeddingColumns = new WeakMap<Knex, Promise<boolean>>();

export function hasEmbeddingColumn(knex: Knex): Promise<boolean> {
  let known = embeddingColumns.get(knex);
  if (!known) {
    known = knex
      .raw<{ rows: unknown[] }>(
        `select 1 from pg_attribute
          where attrelid = to_regclass('knowledge_chunks') and attname = 'embedding' and not attisdropped`,
      )
      .then(({ rows }) => rows.length > 0);
    known.catch(() => embeddingColumns.delete(knex));
    embeddingColumns.set(knex, known);
  }
  return known;
}

/**
 * The `limit` current chunks of `baseIds` nearest to `vector` by cosine distance (score: 1 − the
 * distance): an exact scan of the bases' chunks that have a vector of the same length (a chunk
 * embedded by another model, before a change of EMBEDDINGS_MODEL, is left out until its source is
 * refreshed). The distance is computed once a chunk, and only the nearest are read whole.
 */
export async function vectorSearch(
  knex: Knex,
  baseIds: string[],
  vector: number[],
  limit: number,
): Promise<ChunkRow[]> {
  const { rows } = await knex.raw<{ rows: ChunkRow[] }>(
    `with current_sources as materialized (
       select id, generation, name from knowledge_sources where knowledge_base_id = any(?)
     ), nearest as (
       select c.source_id, c.ordinal, c.embedding <=> ?::vector as distance
         from knowledge_chunks c
        where c.knowledge_base_id = any(?) and vector_dims(c.embedding) = ?
          and (c.source_id, c.generation) in (select id, generation from current_sources)
        order by distance, c.source_id, c.ordinal
        limit ?
     )
     select c.knowledge_base_id, c.source_id, s.name as source_name, c.ordinal, c.heading, c.text,
            (1 - n.distance)::float8 as score
       from nearest n
       join current_sources s on s.id = n.source_id
       join knowledge_chunks c on c.source_id = n.source_id and c.generation = s.generation and c.ordinal = n.ordinal
      order by n.distance, c.source_id, c.ordinal`,
    [baseIds, vectorLiteral(vector), baseIds, vector.length, limit],
  );
  return rows;
}

/**
 * The question's vector for the vector half of a hybrid search, from the provider within its
 * `queryTimeoutMs`. Null when that half cannot run (no embedding column) or the provider fails or is
 * late: the search is then full-text only. Never throws.
 */
export async function embedQuestion(
  knex: Knex,
  embeddings: EmbeddingsConfig,
  q: string,
): Promise<number[] | null> {
  try {
    if (!(await hasEmbeddingColumn(knex))) return null;
    const [vector] = await embedTexts(embeddings, [q], embeddings.queryTimeoutMs);
    return vector ?? null;
  } catch {
    return null;
  }
}

/**
 * Reciprocal Rank Fusion of ranked lists (best first): each chunk scores the sum over the lists it is
 * in of 1 / (RRF_K + its rank, from 1), and the `limit` best come first (ties: the full-text order).
 * Ranks alone count, so a full-text score and a cosine similarity need no common scale.
 */
export function fuseByRank(lists: ChunkRow[][], limit: number): ChunkRow[] {
  const fused = new Map<string, { row: ChunkRow; score: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((row, i) => {
      const key = `${row.source_id}\u0000${row.ordinal}`;
      const entry = fused.get(key) ?? { row, score: 0, first: order++ };
      entry.score += 1 / (RRF_K + i + 1);
      fused.set(key, entry);
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, limit)
    .map(({ row, score }) => ({ ...row, score }));
}
