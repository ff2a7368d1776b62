import knexFactory from 'knex';
import PDFDocument from 'pdfkit';
import { chunkDocument } from '../src/knowledge/chunking';
import { chunkEmbeddingText, embedTexts, vectorLiteral } from '../src/knowledge/embeddings';
import { extractText } from '../src/knowledge/extract';
import { hasEmbeddingColumn } from '../src/knowledge/hybrid-retrieval';
import { retrieveChunks } from '../src/knowledge/retrieval';
import { ensureVectorIndex } from '../src/knowledge/vector-index';
import { embedDeterministically, startEmbeddingsDouble } from '../test/support/embeddings-double';
import { createIsolatedDatabase } from '../test/support/isolated-db';
import { benchQuestions, paragraph, seedCorpus } from './knowledge-corpus';
import { latencyStats, runBench } from './support';

/**
 * bench:knowledge — knowledge retrieval and ingestion (docs/knowledge.md), against PostgreSQL:
 * - retrieval: BENCH_CHUNKS chunks (default 20 000, about 2 000 pages) in one base, BENCH_QUERIES
 *   questions through `retrieveChunks` (the search a turn and GET /knowledge-bases/:id/search run),
 *   p50/p95 beside the floor measured in the same run (a primary-key read of one chunk, the same pool:
 *   what any query costs); target p95 ≤ 15 ms full-text;
 * - hybrid (with pgvector): the chunks embedded by test/support/embeddings-double.ts, the same questions;
 *   target p95 ≤ 25 ms, the question's embedding (an HTTP call to the double) timed apart;
 * - ingestion: pages per second for a PDF and for HTML pages, extracted (in the extraction thread),
 *   chunked and written, as the ingestion's steps do (the workflow's own hops are not in it).
 */

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 20_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 300);
const INGEST_PAGES = Number(process.env.BENCH_INGEST_PAGES ?? 100);

async function seed(knex: knexFactory.Knex): Promise<string> {
  const now = new Date();
  await knex('accounts')
    .insert({
      id: 'acc_bench',
      issuer: 'bench',
      subject: 'bench',
      email: 'bench@example.com',
      plan: 'enterprise',
      created_at: now,
      updated_at: now,
    })
    .onConflict()
    .ignore();
  await knex('knowledge_bases').insert({
    id: 'kb_bench',
    account_id: 'acc_bench',
    environment: 'test',
    name: 'Bench',
    language: 'english',
    created_at: now,
    updated_at: now,
  });
  await seedCorpus(
    knex,
    { accountId: 'acc_bench', environment: 'test', baseId: 'kb_bench', sourcePrefix: 'ks_bench' },
    CHUNKS,
  );
  return 'kb_bench';
}

const owner = { accountId: 'acc_bench', environment: 'test' as const };

async function measureRetrieval(knex: knexFactory.Knex, baseId: string) {
  const questions = benchQuestions(QUERIES);
  for (const q of questions.slice(0, 20)) await retrieveChunks(knex, owner, [baseId], q, 3); // warm-up
  const search: number[] = [];
  const floor: number[] = [];
  for (const [i, q] of questions.entries()) {
    let t = performance.now();
    await retrieveChunks(knex, owner, [baseId], q, 3);
    search.push(performance.now() - t);
    t = performance.now();
    await knex.raw(
      'select text from knowledge_chunks where source_id = ? and generation = 1 and ordinal = ?',
      [`ks_bench${i % 100}`, i % 200],
    );
    floor.push(performance.now() - t);
  }
  return { search: latencyStats(search), floor: latencyStats(floor) };
}

/** Every chunk's vector from the double's function (as its HTTP answers would carry), 1 000 a statement. */
async function embedChunks(knex: knexFactory.Knex) {
  for (let start = 0; start < CHUNKS; start += 1000) {
    const ordinals = Array.from({ length: Math.min(1000, CHUNKS - start) }, (_, k) => start + k);
    await knex.raw(
      `update knowledge_chunks c set embedding = v.embedding::vector
         from unnest(?::text[], ?::int[], ?::text[]) as v(source_id, ordinal, embedding)
        where c.source_id = v.source_id and c.generation = 1 and c.ordinal = v.ordinal`,
      [
        ordinals.map((i) => `ks_bench${i % 100}`),
        ordinals.map((i) => Math.floor(i / 100)),
        ordinals.map((i) => vectorLiteral(embedDeterministically(chunkEmbeddingText(paragraph(i))))),
      ],
    );
  }
  await knex.raw('analyze knowledge_chunks');
}

/** Hybrid retrieval of the same questions, the question's embedding (from the double, over HTTP) apart. */
async function measureHybrid(knex: knexFactory.Knex, baseId: string) {
  const double = await startEmbeddingsDouble();
  const embeddings = { baseUrl: double.baseUrl, model: 'text-embedding-3-small', queryTimeoutMs: 1000 };
  const [embed, search]: number[][] = [[], []];
  try {
    for (const [i, q] of benchQuestions(QUERIES).entries()) {
      let t = performance.now();
      const [questionVector] = await embedTexts(embeddings, [q]);
      if (i >= 20) embed.push(performance.now() - t); // the first 20: warm-up
      t = performance.now();
      await retrieveChunks(knex, owner, [baseId], q, 3, { embeddings, questionVector });
      if (i >= 20) search.push(performance.now() - t);
    }
    return { search: latencyStats(search), embed: latencyStats(embed) };
  } finally {
    await double.close();
  }
}

async function pdfOf(pages: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const pdf = new PDFDocument();
    const parts: Buffer[] = [];
    pdf.on('data', (p: Buffer) => parts.push(p));
    pdf.on('end', () => resolve(Buffer.concat(parts)));
    for (let p = 0; p < pages; p++) {
      if (p > 0) pdf.addPage();
      for (let k = 0; k < 4; k++) pdf.text(paragraph(p * 4 + k).text).moveDown();
    }
    pdf.end();
  });
}

/** Extract, chunk and write `bytes` as one source's chunks; answers pages per second. */
async function ingestRate(
  knex: knexFactory.Knex,
  label: string,
  docs: { bytes: Uint8Array; contentType: string }[],
  pages: number,
) {
  const started = performance.now();
  let ordinal = 0;
  for (const doc of docs) {
    const chunks = chunkDocument(await extractText(doc));
    await knex('knowledge_chunks').insert(
      chunks.map((c) => ({
        source_id: 'ks_bench0',
        generation: 2,
        ordinal: ordinal++,
        knowledge_base_id: 'kb_bench',
        language: 'english',
        heading: c.heading,
        text: c.text,
        token_estimate: c.tokenEstimate,
      })),
    );
  }
  const seconds = (performance.now() - started) / 1000;
  await knex('knowledge_chunks').where({ generation: 2 }).delete();
  console.log(
    `ingestion, ${label.padEnd(34)} ${(pages / seconds).toFixed(1).padStart(8)} pages/s (${pages} pages in ${seconds.toFixed(2)} s)`,
  );
}

async function main(): Promise<void> {
  const db = await createIsolatedDatabase('bench_knowledge');
  const knex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 1, max: 4 } });
  try {
    console.error(`bench:knowledge: seeding ${CHUNKS} chunks`);
    const baseId = await seed(knex);
    const { search, floor } = await measureRetrieval(knex, baseId);
    const ms = (v: number) => `${v.toFixed(2).padStart(7)} ms`;
    console.log(`\nbench:knowledge — ${CHUNKS} chunks in one base, ${QUERIES} questions`);
    console.log(
      `retrieval (full-text, best 3)         p50 ${ms(search.p50)}   p95 ${ms(search.p95)}   target p95 ≤ 15 ms: ${search.p95 <= 15 ? 'met' : 'NOT met'}`,
    );
    console.log(`  floor: a primary-key read, same pool p50 ${ms(floor.p50)}   p95 ${ms(floor.p95)}`);
    if (await hasEmbeddingColumn(knex)) {
      console.error(`bench:knowledge: embedding ${CHUNKS} chunks, then their HNSW index`);
      await embedChunks(knex);
      await ensureVectorIndex(knex, embedDeterministically('size').length); // as the embedding step does
      const hybrid = await measureHybrid(knex, baseId);
      console.log(
        `retrieval (hybrid, best 3)            p50 ${ms(hybrid.search.p50)}   p95 ${ms(hybrid.search.p95)}   target p95 ≤ 25 ms: ${hybrid.search.p95 <= 25 ? 'met' : 'NOT met'}`,
      );
      console.log(
        `  + embedding the question (double)   p50 ${ms(hybrid.embed.p50)}   p95 ${ms(hybrid.embed.p95)}`,
      );
    } else {
      console.log(
        'retrieval (hybrid)                    not measured: no pgvector (scripts/install-pgvector.sh)',
      );
    }
    const pdf = await pdfOf(INGEST_PAGES);
    await ingestRate(
      knex,
      `a ${INGEST_PAGES}-page PDF`,
      [{ bytes: pdf, contentType: 'application/pdf' }],
      INGEST_PAGES,
    );
    const html = Array.from({ length: INGEST_PAGES }, (_, p) => ({
      bytes: Buffer.from(
        `<!doctype html><html><body><nav><a href="/">Home</a></nav><main><h1>Page ${p}</h1>${[0, 1, 2, 3].map((k) => `<h2>${paragraph(p * 4 + k).heading}</h2><p>${paragraph(p * 4 + k).text}</p>`).join('')}</main><footer>©</footer></body></html>`,
      ),
      contentType: 'text/html',
    }));
    await ingestRate(knex, `${INGEST_PAGES} HTML pages`, html, INGEST_PAGES);
  } finally {
    await knex.destroy();
    await db.drop();
  }
}

runBench(main);
