import type { Knex } from 'knex';
import type { Owner } from '../src/common/owner';
import { ConfigError, loadConfig } from '../src/config/env';
import { embedTexts } from '../src/knowledge/embeddings';
import { vectorSearchQuery } from '../src/knowledge/hybrid-retrieval';
import { type RetrievedChunk, retrieveChunks } from '../src/knowledge/retrieval';
import { vectorIndexName } from '../src/knowledge/vector-index';
import {
  DOUBLE_DIMENSIONS,
  type EmbeddingsDouble,
  embedDeterministically,
  startEmbeddingsDouble,
} from './support/embeddings-double';
import { type KnowledgeRig, startKnowledgeRig } from './support/knowledge';
import { HANDBOOK, HANDBOOK_QUESTIONS, handbookMarkdown } from './support/knowledge-handbook';

/**
 * Hybrid retrieval (issue 43, docs/knowledge.md "Hybrid retrieval"): with an embeddings provider (a
 * deterministic double speaking OpenAI's /v1/embeddings) and pgvector, every chunk gets a vector at
 * ingestion and a search fuses full-text and nearest-vector results by rank. On the handbook's 40
 * questions it finds the answering section at least as often as full-text alone; a provider outage
 * at ingestion is retried and at worst leaves the source ready and searched by full text; a provider
 * that fails or is late at query time gives the full-text answer, within the turn's budget.
 */
describe('knowledge hybrid retrieval', () => {
  let rig: KnowledgeRig;
  let double: EmbeddingsDouble;
  let knex: Knex;
  let owner: Owner;
  let baseId = '';

  const addSource = async (name: string, text: string) => {
    const source = await rig.api('POST', `/knowledge-bases/${baseId}/sources`, { type: 'text', name, text });
    expect(source.status).toBe(201);
    return rig.waitForSource(baseId, source.body.data.id, ['ready', 'failed'], 60_000);
  };
  const vectorsOf = async (sourceId: string) =>
    (
      await knex.raw<{ rows: { embedded: number; chunks: number; dims: number | null }[] }>(
        `select count(embedding)::int as embedded, count(*)::int as chunks, max(vector_dims(embedding)) as dims
           from knowledge_chunks c join knowledge_sources s on s.id = c.source_id and s.generation = c.generation
          where c.source_id = ?`,
        [sourceId],
      )
    ).rows[0]!;
  const embeddings = () => rig.app.ctx.config.knowledge.embeddings!;
  const found = (hits: RetrievedChunk[], heading: string) => hits.some((h) => h.heading === heading);

  beforeAll(async () => {
    double = await startEmbeddingsDouble();
    rig = await startKnowledgeRig({
      EMBEDDINGS_BASE_URL: double.baseUrl,
      EMBEDDINGS_API_KEY: 'sk-double-key',
    });
    knex = rig.app.ctx.orm.em.getConnection().getKnex();
    baseId = (await rig.api('POST', '/knowledge-bases', { name: 'Handbook' })).body.data.id;
    const ready = await addSource('Staff handbook', handbookMarkdown());
    expect(ready).toMatchObject({ status: 'ready', chunks: HANDBOOK.length });
    const base = await knex('knowledge_bases').where({ id: baseId }).first();
    owner = { accountId: base.account_id, environment: base.environment };
  }, 90_000);
  afterAll(async () => {
    await rig?.stop();
    await double?.close();
  });

  it('embeds every chunk at ingestion: one vector per chunk, in batches, with the key', async () => {
    const source = (await knex('knowledge_sources').where({ knowledge_base_id: baseId }).first()).id;
    expect(await vectorsOf(source)).toEqual({
      embedded: HANDBOOK.length,
      chunks: HANDBOOK.length,
      dims: DOUBLE_DIMENSIONS,
    });
    const ingestion = double.requests.filter((r) => r.input.length > 1);
    expect(ingestion.length).toBeGreaterThan(0);
    for (const r of ingestion) {
      expect(r).toMatchObject({ model: 'text-embedding-3-small', authorization: 'Bearer sk-double-key' });
      expect(r.input.length).toBeLessThanOrEqual(64);
    }
  });

  it('indexes the vectors by their size (HNSW) at ingestion, and the vector search can use that index', async () => {
    const name = vectorIndexName(DOUBLE_DIMENSIONS);
    const { rows } = await knex.raw('select indisvalid from pg_index where indexrelid = to_regclass(?)', [
      name,
    ]);
    expect(rows).toEqual([{ indisvalid: true }]);
    // the search's SQL names the index's expression and predicate: with scans of the table
    // discouraged (the handbook is small enough for the planner to prefer one), the index serves it
    const plan = await knex.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      await trx.raw('set local enable_bitmapscan = off');
      const { sql, bindings } = vectorSearchQuery(
        [baseId],
        embedDeterministically('Can I return a gift?'),
        5,
      );
      const { rows: lines } = await trx.raw(`explain ${sql}`, bindings as Knex.RawBinding[]);
      return lines.map((l: { 'QUERY PLAN': string }) => l['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain(`Index Scan using ${name}`);
  });

  it('finds the right section in the top 3 at least as often as full-text alone, on the 40 questions', async () => {
    let fullText = 0;
    let hybrid = 0;
    const misses: string[] = [];
    for (const [question, heading] of HANDBOOK_QUESTIONS) {
      if (found(await retrieveChunks(knex, owner, [baseId], question, 3), heading)) fullText += 1;
      const res = await rig.api(
        'GET',
        `/knowledge-bases/${baseId}/search?q=${encodeURIComponent(question)}&limit=3`,
      );
      expect(res.status).toBe(200);
      if (found(res.body.data, heading)) hybrid += 1;
      else misses.push(`${question} → ${res.body.data.map((h: RetrievedChunk) => h.heading).join(' | ')}`);
    }
    if (hybrid < fullText || hybrid < 36)
      throw new Error(`hybrid ${hybrid}/40, full-text ${fullText}/40; hybrid missed:\n${misses.join('\n')}`);
  });

  it('ranks by fused rank: a hit found by both halves scores above one found by a single half', async () => {
    const hits = await retrieveChunks(knex, owner, [baseId], 'gift cards cash', 5, {
      embeddings: embeddings(),
    });
    expect(hits[0]).toMatchObject({ heading: 'Gift cards', sourceName: 'Staff handbook' });
    expect(hits[0]!.score).toBeCloseTo(2 / 61, 5); // first in both lists
    for (const [i, h] of hits.entries()) if (i > 0) expect(h.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  it('falls back to full-text when the provider fails or is late at query time, within the turn budget', async () => {
    const question = 'How long until my refund shows on my card?';
    const fullText = await retrieveChunks(knex, owner, [baseId], question, 3);
    const budget = rig.app.ctx.config.knowledge.turnBudgetMs;
    expect(embeddings().queryTimeoutMs).toBeLessThan(budget);
    for (const behavior of [{ status: 500 }, { hang: true }]) {
      double.configure(behavior);
      try {
        const started = performance.now();
        const hits = await retrieveChunks(knex, owner, [baseId], question, 3, { embeddings: embeddings() });
        expect(performance.now() - started).toBeLessThan(budget);
        expect(hits).toEqual(fullText);
      } finally {
        double.configure({ status: undefined, hang: false });
      }
    }
  });

  it('retries a provider outage at ingestion: the source becomes ready with every vector', async () => {
    double.configure({ failNext: 2 });
    const ready = await addSource(
      'Outage then back',
      'Bicycles may be parked in the courtyard behind the shop.',
    );
    expect(ready.status).toBe('ready');
    expect(await vectorsOf(ready.id)).toMatchObject({ embedded: ready.chunks, chunks: ready.chunks });
  }, 60_000);

  it('makes the source ready, searched by full text, when the provider stays down', async () => {
    double.configure({ failNext: 1_000 });
    try {
      const ready = await addSource('Provider down', 'Umbrellas are lent to customers on rainy days.');
      expect(ready.status).toBe('ready');
      expect(await vectorsOf(ready.id)).toMatchObject({ embedded: 0, chunks: ready.chunks });
      double.configure({ failNext: 0 });
      const hits = await retrieveChunks(knex, owner, [baseId], 'umbrellas rainy', 3, {
        embeddings: embeddings(),
      });
      expect(hits[0]).toMatchObject({ sourceName: 'Provider down' });
    } finally {
      double.configure({ failNext: 0 });
    }
  }, 60_000);
});

describe('embeddings provider', () => {
  it('is configured by EMBEDDINGS_*: none without a base URL, text-embedding-3-small by default', () => {
    expect(loadConfig({}).knowledge.embeddings).toBeUndefined();
    expect(loadConfig({ EMBEDDINGS_BASE_URL: 'https://api.openai.com/v1' }).knowledge.embeddings).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: undefined,
      model: 'text-embedding-3-small',
      dimensions: undefined,
      queryTimeoutMs: 150,
    });
    for (const env of [{ EMBEDDINGS_BASE_URL: 'ftp://x' }, { EMBEDDINGS_DIMENSIONS: '0' }]) {
      const error = (() => {
        try {
          loadConfig(env);
        } catch (e) {
          return e as ConfigError;
        }
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect(error!.problems.join('\n')).toContain(Object.keys(env)[0]);
    }
  });

  it('embeds 64 texts a request, in order, sending `dimensions` when set', async () => {
    const double = await startEmbeddingsDouble();
    try {
      const texts = Array.from({ length: 130 }, (_, i) => `text number ${i}`);
      const config = { baseUrl: double.baseUrl, model: 'm', dimensions: 32, queryTimeoutMs: 150 };
      const vectors = await embedTexts(config, texts);
      expect(double.requests.map((r) => [r.input.length, r.dimensions])).toEqual([
        [64, 32],
        [64, 32],
        [2, 32],
      ]);
      expect(vectors).toEqual(texts.map((t) => embedDeterministically(t, 32)));
      double.configure({ status: 401 });
      await expect(embedTexts({ ...config, apiKey: 'sk-secret' }, ['x'])).rejects.toMatchObject({
        retryable: false,
        message: expect.not.stringContaining('sk-secret'),
      });
    } finally {
      await double.close();
    }
  });
});
