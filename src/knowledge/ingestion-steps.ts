import type { Knex } from 'knex';
import type { CoreContext } from '../common/context';
import { derivedId } from '../common/ids';
import type { Environment } from '../common/owner';
import { eventRow, insertEventsSql } from '../events/emit';
import { chunkDocument } from './chunking';
import { storeCrawledPages } from './crawled-source';
import { ExtractionError, extractText } from './extract';
import { hasEmbeddingColumn } from './hybrid-retrieval';
import type { CrawlSettings } from './knowledge.entity';
import type { SourceType } from './languages';
import { fetchUrlDocument, UrlSourceError } from './url-source';

/** Which run of a source's ingestion: its chunks are written under `generation`. */
export interface IngestionRef {
  sourceId: string;
  generation: number;
}

/** What a step found: go on, stop (the source was deleted or refreshed again), or failed with a reason. */
export type StepOutcome =
  | { kind: 'done'; chunks: number }
  | { kind: 'gone' }
  | { kind: 'failed'; reason: string };

type Ctx = Pick<CoreContext, 'orm' | 'config'>;
const knexOf = (ctx: Ctx): Knex => ctx.orm.em.getConnection().getKnex();

/** Marks the source `indexing`; answers what to read, or null when this run is no longer wanted. */
export async function beginIngestion(
  ctx: Ctx,
  ref: IngestionRef,
): Promise<{ type: SourceType; url: string | null; crawl: CrawlSettings | null } | null> {
  const { rows } = await knexOf(ctx).raw<{
    rows: { type: SourceType; url: string | null; crawl: CrawlSettings | null }[];
  }>(
    `update knowledge_sources set status = 'indexing', updated_at = now()
      where id = ? and ingest_generation = ? and status in ('pending', 'indexing')
      returning type, url, crawl`,
    [ref.sourceId, ref.generation],
  );
  return rows[0] ?? null;
}

/**
 * A URL source's content, replacing what an earlier run stored: without `crawl`, the page fetched
 * through the outbound guard; with it, every page the crawl reads on the site
 * (src/knowledge/crawled-source.ts), each a document of its own.
 */
export async function fetchUrlSource(
  ctx: Ctx,
  input: IngestionRef & { url: string; crawl: CrawlSettings | null },
): Promise<StepOutcome> {
  if (input.crawl) return fetchCrawledSource(ctx, { ...input, crawl: input.crawl });
  let page: Awaited<ReturnType<typeof fetchUrlDocument>>;
  try {
    page = await fetchUrlDocument(ctx.config.outbound, input.url);
  } catch (error) {
    if (error instanceof UrlSourceError) return { kind: 'failed', reason: error.message };
    throw error;
  }
  return knexOf(ctx).transaction(async (trx) => {
    const { rowCount } = await trx.raw(
      `update knowledge_sources set bytes = ?, content_type = ?, updated_at = now() where id = ? and ingest_generation = ?`,
      [page.content.length, page.contentType?.slice(0, 200) ?? null, input.sourceId, input.generation],
    );
    if (!rowCount) return { kind: 'gone' } as const;
    await trx.raw('delete from knowledge_source_documents where source_id = ?', [input.sourceId]);
    await trx.raw(
      'insert into knowledge_source_documents (source_id, ordinal, url, content_type, file_name, content) values (?, 0, ?, ?, null, ?)',
      [input.sourceId, page.url, page.contentType?.slice(0, 200) ?? null, page.content],
    );
    return { kind: 'done', chunks: 0 } as const;
  });
}

/** A crawled URL source: its pages stored in one transaction, then the source's size. */
function fetchCrawledSource(
  ctx: Ctx,
  input: IngestionRef & { url: string; crawl: CrawlSettings },
): Promise<StepOutcome> {
  return knexOf(ctx).transaction(async (trx) => {
    const crawled = await storeCrawledPages(trx, ctx.config.outbound, input);
    if (!crawled.ok) return { kind: 'failed', reason: crawled.reason } as const;
    const { rowCount } = await trx.raw(
      `update knowledge_sources set bytes = ?, content_type = 'text/html', updated_at = now() where id = ? and ingest_generation = ?`,
      [crawled.bytes, input.sourceId, input.generation],
    );
    return rowCount ? ({ kind: 'done', chunks: 0 } as const) : ({ kind: 'gone' } as const);
  });
}

interface DocumentRow {
  ordinal: number;
  url: string | null;
  content_type: string | null;
  file_name: string | null;
  content: Buffer;
}

/** A chunk to write: its place across the source's documents, heading and text. */
interface ChunkRow {
  heading: string | null;
  text: string;
  tokenEstimate: number;
}

/** Every document of the source, extracted and chunked in order; an ExtractionError names the failing one. */
async function chunksOf(documents: DocumentRow[]): Promise<ChunkRow[]> {
  const chunks: ChunkRow[] = [];
  for (const d of documents) {
    const extracted = await extractText({
      bytes: d.content,
      contentType: d.content_type ?? '',
      fileName: d.file_name ?? undefined,
      url: d.url ?? undefined,
    });
    for (const c of chunkDocument(extracted))
      chunks.push({ heading: c.heading, text: c.text, tokenEstimate: c.tokenEstimate });
  }
  return chunks;
}

/**
 * Extracts and chunks the source's documents and upserts the chunks under this run's generation,
 * keyed by (source, generation, ordinal): run again after a crash, it writes the same rows. Nothing is
 * searched yet (search reads the source's current generation). A document that cannot be read fails
 * the source with the extraction's reason.
 */
export async function indexSourceChunks(ctx: Ctx, ref: IngestionRef): Promise<StepOutcome> {
  const knex = knexOf(ctx);
  const documents = (
    await knex.raw<{ rows: DocumentRow[] }>(
      'select ordinal, url, content_type, file_name, content from knowledge_source_documents where source_id = ? order by ordinal',
      [ref.sourceId],
    )
  ).rows;
  if (documents.length === 0) return { kind: 'gone' };
  let chunks: ChunkRow[];
  try {
    chunks = await chunksOf(documents);
  } catch (error) {
    if (error instanceof ExtractionError) return { kind: 'failed', reason: error.reason };
    throw error;
  }
  // a chunk rewritten with another text loses its vector (embedSourceChunks embeds it again)
  const staleVector = (await hasEmbeddingColumn(knex))
    ? `, embedding = case when knowledge_chunks.text = excluded.text and knowledge_chunks.heading is not distinct from excluded.heading
                          then knowledge_chunks.embedding end`
    : '';
  const { rowCount } = await knex.raw(
    `insert into knowledge_chunks (source_id, generation, ordinal, knowledge_base_id, language, heading, text, token_estimate)
     select s.id, ?, c.ordinal, s.knowledge_base_id, b.language::regconfig, c.heading, c.text, c.token_estimate
       from knowledge_sources s join knowledge_bases b on b.id = s.knowledge_base_id,
            unnest(?::int[], ?::text[], ?::text[], ?::int[]) as c(ordinal, heading, text, token_estimate)
      where s.id = ? and s.ingest_generation = ?
     on conflict (source_id, generation, ordinal) do update
       set heading = excluded.heading, text = excluded.text, token_estimate = excluded.token_estimate${staleVector}`,
    [
      ref.generation,
      chunks.map((_, i) => i),
      chunks.map((c) => c.heading),
      chunks.map((c) => c.text),
      chunks.map((c) => c.tokenEstimate),
      ref.sourceId,
      ref.generation,
    ],
  );
  if (!rowCount && chunks.length > 0) return { kind: 'gone' };
  // chunks past the last (none, unless the content changed between two runs of this generation)
  await knex.raw('delete from knowledge_chunks where source_id = ? and generation = ? and ordinal >= ?', [
    ref.sourceId,
    ref.generation,
    chunks.length,
  ]);
  return { kind: 'done', chunks: chunks.length };
}

interface FinishedSource {
  id: string;
  account_id: string;
  environment: Environment;
  knowledge_base_id: string;
  name: string;
  type: SourceType;
}

/**
 * Ends a run, in one transaction, once: `ready` makes this generation the one searched and deletes
 * the chunks of every other (one statement each way, so a search sees the old chunks or the new ones,
 * never a mix); `failed` records the reason and drops this generation's chunks, keeping the ones
 * searched until now. The event (`knowledge.source.ready` / `.failed`, id derived from the source and
 * generation) commits with it.
 */
export async function finishIngestion(
  ctx: Ctx,
  input: IngestionRef & { outcome: { kind: 'done'; chunks: number } | { kind: 'failed'; reason: string } },
): Promise<void> {
  const { sourceId, generation, outcome } = input;
  await knexOf(ctx).transaction(async (trx) => {
    const ready = outcome.kind === 'done';
    const { rows } = await trx.raw<{ rows: FinishedSource[] }>(
      ready
        ? `update knowledge_sources set status = 'ready', generation = ?, chunk_count = ?, failure_reason = null,
             indexed_at = now(), updated_at = now()
           where id = ? and ingest_generation = ? and status = 'indexing' returning *`
        : `update knowledge_sources set status = 'failed', failure_reason = ?, updated_at = now()
           where id = ? and ingest_generation = ? and status = 'indexing' returning *`,
      ready
        ? [generation, outcome.chunks, sourceId, generation]
        : [outcome.reason.slice(0, 2000), sourceId, generation],
    );
    const source = rows[0];
    if (!source) return;
    await trx.raw(`delete from knowledge_chunks where source_id = ? and generation ${ready ? '<>' : '='} ?`, [
      sourceId,
      generation,
    ]);
    const type = ready ? 'knowledge.source.ready' : 'knowledge.source.failed';
    const owner = { accountId: source.account_id, environment: source.environment };
    const data = {
      sourceId,
      knowledgeBaseId: source.knowledge_base_id,
      name: source.name,
      type: source.type,
      generation,
      ...(outcome.kind === 'done' ? { chunks: outcome.chunks } : { reason: outcome.reason }),
    };
    const event = eventRow({
      ...owner,
      id: derivedId('evt', sourceId, String(generation), type),
      type,
      personaId: null,
      data,
    });
    const { sql, bindings } = insertEventsSql(owner, [event]);
    await trx.raw(sql, bindings);
  });
}
