import type { Knex } from 'knex';

/**
 * The approximate nearest-neighbour index of the chunks' vectors (docs/knowledge.md "Hybrid
 * retrieval"). `knowledge_chunks.embedding` is a `vector` of no fixed size (the size is the
 * provider's model's), and pgvector's HNSW indexes a fixed size, so there is one partial expression
 * index per size in use: `(embedding::vector(N))` where `vector_dims(embedding) = N`, with cosine
 * distance. A search of N-number vectors names that expression and predicate, with N written in
 * the SQL (a bound N would not match the index's predicate).
 */

/** The index of N-number vectors. */
export function vectorIndexName(dims: number): string {
  return `knowledge_chunks_embedding_hnsw_${checkedDims(dims)}`;
}

/** pgvector's HNSW indexes vectors of up to 2 000 numbers. */
export const MAX_INDEXED_DIMS = 2_000;

function checkedDims(dims: number): number {
  if (!Number.isInteger(dims) || dims < 1 || dims > 16_000) throw new Error(`Not a vector size: ${dims}`);
  return dims;
}

/** Sizes whose index this process has made sure of, per connection pool. */
const ensured = new WeakMap<Knex, Map<number, Promise<void>>>();

/**
 * Makes sure the index of `dims`-number vectors exists and is valid: built `concurrently`, so the
 * chunks stay writable meanwhile, once per size and process. A build that another process runs at
 * the same time wins (its duplicate-name error is ignored); an invalid index (a build cut short by a
 * crash) is dropped and built again. Vectors above MAX_INDEXED_DIMS get no index (exact search).
 */
export function ensureVectorIndex(knex: Knex, dims: number): Promise<void> {
  if (dims > MAX_INDEXED_DIMS) return Promise.resolve();
  const sizes = ensured.get(knex) ?? new Map<number, Promise<void>>();
  ensured.set(knex, sizes);
  let done = sizes.get(dims);
  if (!done) {
    done = buildVectorIndex(knex, dims);
    done.catch(() => sizes.delete(dims));
    sizes.set(dims, done);
  }
  return done;
}

async function buildVectorIndex(knex: Knex, dims: number): Promise<void> {
  const name = vectorIndexName(dims);
  const { rows } = await knex.raw<{ rows: { valid: boolean }[] }>(
    `select i.indisvalid as valid from pg_index i where i.indexrelid = to_regclass(?)`,
    [name],
  );
  if (rows[0]?.valid) return;
  if (rows[0]) await knex.raw(`drop index concurrently if exists "${name}"`);
  try {
    await knex.raw(
      `create index concurrently if not exists "${name}" on knowledge_chunks
         using hnsw ((embedding::vector(${dims})) vector_cosine_ops) where vector_dims(embedding) = ${dims}`,
    );
  } catch (error) {
    // another process built it at the same moment: the name is taken, the index is theirs
    if ((error as { code?: string }).code !== '23505') throw error;
  }
}

/**
 * Runs `search` in a transaction where pgvector's HNSW scan goes on past its first candidates until
 * enough rows pass the search's filters (`hnsw.iterative_scan`, pgvector 0.8): one base's chunks
 * among many others' are still found. A pgvector without it runs the search as it is.
 */
export async function withIterativeScan<T>(knex: Knex, search: (trx: Knex.Transaction) => Promise<T>) {
  return knex.transaction(async (trx) => {
    await trx.raw('savepoint iterative_scan');
    try {
      await trx.raw(`set local hnsw.iterative_scan = relaxed_order`);
      await trx.raw('release savepoint iterative_scan');
    } catch {
      await trx.raw('rollback to savepoint iterative_scan');
    }
    return search(trx);
  });
}
