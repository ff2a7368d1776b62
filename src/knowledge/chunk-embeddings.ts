import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import type { CoreContext } from '../common/context';
import {
  chunkEmbeddingText,
  EMBEDDING_BATCH_SIZE,
  EmbeddingsError,
  embedTexts,
  vectorLiteral,
} from './embeddings';
import { hasEmbeddingColumn } from './hybrid-retrieval';
import type { IngestionRef } from './ingestion-steps';
import { ensureVectorIndex } from './vector-index';

type Ctx = Pick<CoreContext, 'orm' | 'config'>;

/**
 * Embeds the chunks of this run's generation that have no vector yet, EMBEDDING_BATCH_SIZE a request,
 * each batch stored as it comes: run again after a crash or a provider failure, it goes on where it
 * stopped. Nothing to do without an embeddings provider or without the `embedding` column (no
 * pgvector). A provider outage (unreachable, 429, 5xx) is retryable, a refusal (4xx) final; either
 * way the workflow then makes the source ready, searched by full text (docs/knowledge.md). Once its
 * vectors are stored, the HNSW index of their size is made sure of (src/knowledge/vector-index.ts).
 */
export async function embedSourceChunks(ctx: Ctx, ref: IngestionRef): Promise<{ embedded: number }> {
  const embeddings = ctx.config.knowledge.embeddings;
  const knex: Knex = ctx.orm.em.getConnection().getKnex();
  if (!embeddings || !(await hasEmbeddingColumn(knex))) return { embedded: 0 };
  let embedded = 0;
  let after = -1;
  let dims = 0;
  for (;;) {
    const { rows } = await knex.raw<{ rows: { ordinal: number; heading: string | null; text: string }[] }>(
      `select ordinal, heading, text from knowledge_chunks
        where source_id = ? and generation = ? and embedding is null and ordinal > ?
        order by ordinal limit ?`,
      [ref.sourceId, ref.generation, after, EMBEDDING_BATCH_SIZE],
    );
    if (!rows.length) {
      if (dims) await ensureVectorIndex(knex, dims);
      return { embedded };
    }
    let vectors: number[][];
    try {
      vectors = await embedTexts(embeddings, rows.map(chunkEmbeddingText));
    } catch (error) {
      if (!(error instanceof EmbeddingsError)) throw error;
      throw error.retryable
        ? ApplicationFailure.retryable(error.message, 'EmbeddingsUnavailable')
        : ApplicationFailure.nonRetryable(error.message, 'EmbeddingsRefused');
    }
    await knex.raw(
      `update knowledge_chunks c set embedding = v.embedding::vector
         from unnest(?::int[], ?::text[]) as v(ordinal, embedding)
        where c.source_id = ? and c.generation = ? and c.ordinal = v.ordinal`,
      [rows.map((r) => r.ordinal), vectors.map(vectorLiteral), ref.sourceId, ref.generation],
    );
    embedded += rows.length;
    dims = vectors[0]?.length ?? dims;
    after = rows[rows.length - 1]!.ordinal;
  }
}
