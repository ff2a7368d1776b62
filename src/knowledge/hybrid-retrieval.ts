import type { Knex } from 'knex';
import type { EmbeddingsConfig } from '../config/embeddings';
import { embedTexts, vectorLiteral } from './embeddings';
import { vectorIndexName, withIterativeScan } from './vector-index';

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
 * distance), among the chunks with a vector of the same length (a chunk embedded by another model,
 * before a change of EMBEDDINGS_MODEL, is left out until its source is refreshed). With that
 * length's HNSW index (src/knowledge/vector-index.ts) the nearest come from the index, scanned on
 * until enough pass the bases and generations; without it, from an exact scan. Only the nearest are
 * read whole.
 */
export async function vectorSearch(
  knex: Knex,
  baseIds: string[],
  vector: number[],
  limit: number,
): Promise<ChunkRow[]> {
  const { sql, bindings } = vectorSearchQuery(baseIds, vector, limit);
  const { rows } = await withIterativeScan(knex, (trx) => trx.raw<{ rows: ChunkRow[] }>(sql, bindings));
  return rows;
}

/** vectorSearch's SQL and bindings (a test explains it). */
export function vectorSearchQuery(baseIds: string[], vector: number[], limit: number) {
  const dims = vector.length;
  vectorIndexName(dims); // a vector size written into the SQL: checked to be one
  const sql = `with current_sources as materialized (
       select id, generation, name from knowledge_sources where knowledge_base_id = any(?)
     ), nearest as (
       select c.source_id, c.ordinal, c.embedding::vector(${dims}) <=> ?::vector(${dims}) as distance
         from knowledge_chunks c
        where vector_dims(c.embedding) = ${dims} and c.knowledge_base_id = any(?)
          and (c.source_id, c.generation) in (select id, generation from current_sources)
        order by c.embedding::vector(${dims}) <=> ?::vector(${dims})
        limit ?
     )
     select c.knowledge_base_id, c.source_id, s.name as source_name, c.ordinal, c.heading, c.text,
            (1 - n.distance)::float8 as score
       from nearest n
       join current_sources s on s.id = n.source_id
       join knowledge_chunks c on c.source_id = n.source_id and c.generation = s.generation and c.ordinal = n.ordinal
      order by n.distance, c.source_id, c.ordinal`;
  const literal = vectorLiteral(vector);
  return { sql, bindings: [baseIds, literal, baseIds, literal, limit] };
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
