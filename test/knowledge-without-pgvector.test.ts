import { Client } from 'pg';
import { entities } from '../src/app/entities';
import { initOrm, runMigrations } from '../src/db/orm';
import { createLogger } from '../src/logging/logger';
import { type EmbeddingsDouble, startEmbeddingsDouble } from './support/embeddings-double';
import { databaseUrl, testServerUrl } from './support/env';
import { type KnowledgeRig, startKnowledgeRig } from './support/knowledge';
import { HANDBOOK, HANDBOOK_QUESTIONS, handbookMarkdown } from './support/knowledge-handbook';

/**
 * Knowledge retrieval on a PostgreSQL without pgvector (issue 43, docs/knowledge.md "Which runs
 * when"): the platform's database belongs to a role that may not create the `vector` extension (it
 * is not a trusted extension, so only a superuser may), as on a server without pgvector installed.
 * The migrations run all the same and leave out the `embedding` column. With an embeddings
 * provider configured, a source is still ingested (nothing is sent to the provider), and search is
 * full-text: the handbook's questions still find their section, and no question is embedded.
 */

const ROLE = 'vp_without_pgvector';

async function asAdmin<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: testServerUrl() });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** A database owned by ROLE (no superuser), migrated as ROLE: its URL. */
async function databaseWithoutVector(name: string): Promise<string> {
  await asAdmin(async (admin) => {
    await admin.query(
      `do $$ begin create role ${ROLE} login nosuperuser; exception when duplicate_object then null; end $$`,
    );
    await admin.query(`create database "${name}" owner ${ROLE}`);
  });
  const url = new URL(databaseUrl(name));
  url.username = ROLE;
  const orm = await initOrm({ url: url.toString(), poolMax: 2, entities });
  try {
    await runMigrations(orm, createLogger('silent'));
  } finally {
    await orm.close();
  }
  return url.toString();
}

describe('knowledge retrieval without pgvector', () => {
  const name = `vp_no_pgvector_${Date.now().toString(36)}_${process.pid}`;
  let url = '';
  let rig: KnowledgeRig;
  let double: EmbeddingsDouble;
  let baseId = '';

  beforeAll(async () => {
    url = await databaseWithoutVector(name);
    double = await startEmbeddingsDouble();
    rig = await startKnowledgeRig({
      DATABASE_URL: url,
      EMBEDDINGS_BASE_URL: double.baseUrl,
      EMBEDDINGS_API_KEY: 'sk-double-key',
    });
    baseId = (await rig.api('POST', '/knowledge-bases', { name: 'Handbook' })).body.data.id;
  }, 90_000);
  afterAll(async () => {
    await rig?.stop();
    await double?.close();
    await asAdmin((admin) => admin.query(`drop database if exists "${name}" with (force)`));
  });

  it('migrates without the extension and without the embedding column', async () => {
    const knex = rig.app.ctx.orm.em.getConnection().getKnex();
    const { rows: extensions } = await knex.raw(`select 1 from pg_extension where extname = 'vector'`);
    expect(extensions).toEqual([]);
    const { rows: columns } = await knex.raw(
      `select 1 from information_schema.columns where table_name = 'knowledge_chunks' and column_name = 'embedding'`,
    );
    expect(columns).toEqual([]);
  });

  it('ingests a source without asking the provider, and answers by full text alone', async () => {
    const source = await rig.api('POST', `/knowledge-bases/${baseId}/sources`, {
      type: 'text',
      name: 'Staff handbook',
      text: handbookMarkdown(),
    });
    expect(source.status).toBe(201);
    const ready = await rig.waitForSource(baseId, source.body.data.id, ['ready', 'failed'], 60_000);
    expect(ready).toMatchObject({ status: 'ready', chunks: HANDBOOK.length });
    let found = 0;
    for (const [question, heading] of HANDBOOK_QUESTIONS) {
      const res = await rig.api('GET', `/knowledge-bases/${baseId}/search?q=${encodeURIComponent(question)}`);
      expect(res.status).toBe(200);
      if (res.body.data.some((h: { heading: string }) => h.heading === heading)) found++;
    }
    expect(found).toBeGreaterThanOrEqual(36);
    expect(double.requests).toEqual([]);
  }, 90_000);
});
