import { queryParts } from '../src/knowledge/search-query';
import { type KnowledgeRig, startKnowledgeRig } from './support/knowledge';
import { HANDBOOK, HANDBOOK_QUESTIONS, handbookMarkdown } from './support/knowledge-handbook';

/**
 * Full-text retrieval (issue 43, docs/knowledge.md "Retrieval"): a small handbook indexed as a text
 * source, and 40 fixed questions whose answering section must be among the first three hits for at
 * least 36 of them, with full-text search alone. Also phrases, prefixes and exclusions.
 */
describe('knowledge search', () => {
  let rig: KnowledgeRig;
  let baseId = '';
  const search = async (q: string, limit = 3) => {
    const res = await rig.api(
      'GET',
      `/knowledge-bases/${baseId}/search?q=${encodeURIComponent(q)}&limit=${limit}`,
    );
    expect(res.status).toBe(200);
    return res.body.data as { heading: string | null; text: string; score: number; sourceName: string }[];
  };
  beforeAll(async () => {
    rig = await startKnowledgeRig();
    baseId = (await rig.api('POST', '/knowledge-bases', { name: 'Handbook' })).body.data.id;
    const text = handbookMarkdown();
    const source = await rig.api('POST', `/knowledge-bases/${baseId}/sources`, {
      type: 'text',
      name: 'Staff handbook',
      text,
    });
    const ready = await rig.waitForSource(baseId, source.body.data.id, ['ready', 'failed']);
    expect(ready).toMatchObject({ status: 'ready', chunks: HANDBOOK.length });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  it('finds the right section in the top 3 for at least 36 of the 40 questions', async () => {
    expect(HANDBOOK_QUESTIONS).toHaveLength(40);
    const misses: string[] = [];
    for (const [question, heading] of HANDBOOK_QUESTIONS) {
      const hits = await search(question);
      if (!hits.some((h) => h.heading === heading))
        misses.push(`${question} → ${hits.map((h) => h.heading).join(' | ') || 'nothing'}`);
    }
    const found = HANDBOOK_QUESTIONS.length - misses.length;
    if (found < 36) throw new Error(`found ${found}/40; missed:\n${misses.join('\n')}`);
  });

  it('answers hits with the source name, heading, text and a score, best first', async () => {
    const [best, ...rest] = await search('gift cards cash', 5);
    expect(best).toMatchObject({ sourceName: 'Staff handbook', heading: 'Gift cards' });
    expect(best.text).toContain('cannot be exchanged for cash');
    for (const hit of rest) expect(hit.score).toBeLessThanOrEqual(best.score);
  });

  it('matches phrases in quotes, prefixes of words, and leaves out -excluded words', async () => {
    expect((await search('"annual leave"', 10)).map((h) => h.heading)).toEqual(['Holidays']);
    expect((await search('"leave annual"', 10)).map((h) => h.heading)).toEqual([]);
    expect((await search('warrant', 1))[0].heading).toBe('Warranty');
    const excluded = (await search('free -parking', 30)).map((h) => h.heading);
    expect(excluded).toContain('Wi-Fi');
    expect(excluded).not.toContain('Parking');
    expect(await search('zzqx')).toEqual([]);
  });

  it('writes chunks straight into the full-text index: no pending list for a search to read', async () => {
    const knex = rig.app.ctx.orm.em.getConnection().getKnex();
    const { rows } = await knex.raw<{ rows: { reloptions: string[] | null }[] }>(
      `select reloptions from pg_class where oid = 'knowledge_chunks_search_index'::regclass`,
    );
    expect(rows[0]?.reloptions).toContain('fastupdate=off');
  });

  it('refuses an empty or over-long query naming q', async () => {
    for (const q of ['', 'x'.repeat(501)]) {
      const res = await rig.api('GET', `/knowledge-bases/${baseId}/search?q=${q}`);
      expect(res.status).toBe(400);
      expect(res.body.validationErrors.join('\n')).toMatch(/^q: /m);
    }
  });

  it('splits a query into its phrases and exclusions, and its plain words', () => {
    expect(queryParts('"free parking" -dogs Open-hours now')).toEqual({
      required: '"free parking" -dogs',
      words: ['open', 'hours', 'now'],
    });
  });
});
