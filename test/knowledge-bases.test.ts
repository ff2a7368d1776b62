import { type KnowledgeRig, startKnowledgeRig } from './support/knowledge';
import { completeManifest } from './support/personas';
import { call, newDeveloper } from './support/test-app';

/**
 * Knowledge bases and their sources through the API (issue 43, docs/knowledge.md "Knowledge bases and
 * sources"): create, list, read, update, delete; the sources' JSON and multipart forms, the 20 MB
 * limit (413), validation naming the field, isolation between accounts, scopes, and a persona's
 * `knowledge.bases`. Ingestion itself: test/knowledge-ingestion.test.ts.
 */
describe('knowledge bases', () => {
  let rig: KnowledgeRig;
  beforeAll(async () => {
    rig = await startKnowledgeRig({}, { worker: false });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  const newBase = async (body: Record<string, unknown> = { name: 'Handbook' }) => {
    const res = await rig.api('POST', '/knowledge-bases', body);
    expect(res.status).toBe(201);
    return res.body.data as { id: string; name: string; language: string };
  };

  it('creates, lists, reads, updates and deletes a base', async () => {
    const base = await newBase({ name: 'Support handbook', description: 'Policies' });
    expect(base).toMatchObject({ name: 'Support handbook', language: 'english' });
    expect(base.id).toMatch(/^kb_/);
    const listed = await rig.api('GET', '/knowledge-bases?limit=200');
    expect(listed.body.data.map((b: { id: string }) => b.id)).toContain(base.id);
    expect(listed.body.pagination).toMatchObject({ limit: 200, offset: 0 });
    const updated = await rig.api('PUT', `/knowledge-bases/${base.id}`, {
      name: 'Manual',
      language: 'french',
    });
    expect(updated.body.data).toMatchObject({ name: 'Manual', language: 'french', description: null });
    expect((await rig.api('GET', `/knowledge-bases/${base.id}`)).body.data.name).toBe('Manual');
    expect((await rig.api('DELETE', `/knowledge-bases/${base.id}`)).body.data).toEqual({
      deleted: true,
      id: base.id,
    });
    expect((await rig.api('GET', `/knowledge-bases/${base.id}`)).status).toBe(404);
  });

  it('refuses a bad body naming the field', async () => {
    const refused = async (path: string, body: unknown) => {
      const res = await rig.api('POST', path, body);
      expect(res.status).toBe(400);
      return (res.body.validationErrors as string[]).join('\n');
    };
    expect(await refused('/knowledge-bases', { name: '' })).toMatch(/^name: /m);
    expect(await refused('/knowledge-bases', { name: 'x', language: 'klingon' })).toMatch(/^language: /m);
    const base = await newBase();
    const sources = `/knowledge-bases/${base.id}/sources`;
    expect(await refused(sources, { type: 'text', name: 'x' })).toMatch(/^text: /m);
    expect(await refused(sources, { type: 'url', url: 'ftp://example.com/a' })).toMatch(/^url: /m);
    expect(
      await refused(sources, { type: 'url', url: 'https://example.com', crawl: { maxDepth: 4 } }),
    ).toMatch(/^crawl\.maxDepth: /m);
    expect(
      await refused(sources, { type: 'url', url: 'https://example.com', crawl: { maxPages: 201 } }),
    ).toMatch(/^crawl\.maxPages: /m);
    expect(await refused(sources, { type: 'file' })).toMatch(/^type: .*multipart/m);
    expect(await refused(sources, { type: 'video' })).toMatch(/^type: /m);
  });

  it('adds text, URL and file sources, lists, reads and deletes them', async () => {
    const base = await newBase();
    const sources = `/knowledge-bases/${base.id}/sources`;
    const text = await rig.api('POST', sources, {
      type: 'text',
      name: 'FAQ',
      text: '# Returns\n\nWithin 30 days.',
    });
    expect(text.status).toBe(201);
    expect(text.body.data).toMatchObject({ type: 'text', name: 'FAQ', status: 'pending', chunks: 0 });
    expect(text.body.data.id).toMatch(/^ks_/);
    const url = await rig.api('POST', sources, {
      type: 'url',
      url: 'https://example.com/help',
      crawl: { maxDepth: 1 },
    });
    expect(url.body.data).toMatchObject({
      type: 'url',
      url: 'https://example.com/help',
      crawl: { maxDepth: 1, maxPages: 1 },
    });
    const file = await rig.upload(base.id, {
      fileName: 'notes.md',
      contentType: 'text/markdown',
      bytes: Buffer.from('# Notes\n\nHello.'),
    });
    expect(file.status).toBe(201);
    expect(file.body.data).toMatchObject({
      type: 'file',
      name: 'notes.md',
      bytes: 15,
      contentType: 'text/markdown',
    });
    const listed = await rig.api('GET', sources);
    expect(listed.body.data.map((s: { id: string }) => s.id).sort()).toEqual(
      [text.body.data.id, url.body.data.id, file.body.data.id].sort(),
    );
    expect((await rig.api('GET', `${sources}?status=ready`)).body.data).toEqual([]);
    const one = await rig.api('GET', `${sources}/${file.body.data.id}`);
    expect(one.body.data.id).toBe(file.body.data.id);
    expect((await rig.api('DELETE', `${sources}/${file.body.data.id}`)).status).toBe(200);
    expect((await rig.api('GET', `${sources}/${file.body.data.id}`)).status).toBe(404);
    // a source under way cannot be refreshed yet
    expect((await rig.api('POST', `${sources}/${text.body.data.id}/refresh`)).status).toBe(409);
  });

  it('answers 413 with the error body for a file over 20 MB, and stores nothing', async () => {
    const base = await newBase();
    const res = await rig.upload(base.id, {
      fileName: 'big.txt',
      contentType: 'text/plain',
      bytes: Buffer.alloc(30 * 1024 * 1024, 'a'),
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    expect((await rig.api('GET', `/knowledge-bases/${base.id}/sources`)).body.data).toEqual([]);
  });

  it("keeps accounts apart: another account's base and sources are 404", async () => {
    const base = await newBase();
    const source = await rig.api('POST', `/knowledge-bases/${base.id}/sources`, {
      type: 'text',
      name: 'a',
      text: 'b',
    });
    const other = await newDeveloper(rig.app, 'other');
    const as = (method: string, path: string, body?: unknown) => rig.api(method, path, body, other.testKey);
    expect((await as('GET', `/knowledge-bases/${base.id}`)).status).toBe(404);
    expect((await as('PUT', `/knowledge-bases/${base.id}`, { name: 'x' })).status).toBe(404);
    expect((await as('GET', `/knowledge-bases/${base.id}/sources`)).status).toBe(404);
    expect((await as('GET', `/knowledge-bases/${base.id}/sources/${source.body.data.id}`)).status).toBe(404);
    expect((await as('DELETE', `/knowledge-bases/${base.id}/sources/${source.body.data.id}`)).status).toBe(
      404,
    );
    expect(
      (await as('POST', `/knowledge-bases/${base.id}/sources`, { type: 'text', name: 'a', text: 'b' }))
        .status,
    ).toBe(404);
    expect((await as('GET', `/knowledge-bases/${base.id}/search?q=b`)).status).toBe(404);
    expect((await as('DELETE', `/knowledge-bases/${base.id}`)).status).toBe(404);
    // the live key of the same account is another environment
    expect((await rig.api('GET', `/knowledge-bases/${base.id}`, undefined, rig.dev.liveKey)).status).toBe(
      404,
    );
    expect((await rig.api('GET', `/knowledge-bases/${base.id}`)).status).toBe(200);
  });

  it('needs knowledge:read and knowledge:write', async () => {
    const created = await call(rig.app.baseUrl, 'POST', '/api/v1/developers/keys', {
      token: rig.dev.token,
      body: { name: 'kb-read', environment: 'test', scopes: ['knowledge:read'] },
    });
    const key = created.body.key.fullKey as string;
    expect((await rig.api('GET', '/knowledge-bases', undefined, key)).status).toBe(200);
    const refused = await rig.api('POST', '/knowledge-bases', { name: 'x' }, key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('knowledge:write');
  });

  it("refuses a persona naming a base that is missing or another account's", async () => {
    const mine = await newBase();
    const other = await newDeveloper(rig.app, 'other-persona');
    const theirs = await rig.api('POST', '/knowledge-bases', { name: 'theirs' }, other.testKey);
    const save = (bases: string[]) => {
      const manifest = completeManifest(`kb-${Date.now()}-${bases.length}`);
      Object.assign(manifest.knowledge, { bases });
      return call(rig.app.baseUrl, 'POST', '/api/v1/developers/personas', {
        token: rig.dev.token,
        body: { manifest },
      });
    };
    const refused = await save([mine.id, theirs.body.data.id, 'kb_missing']);
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors).toEqual([
      expect.stringMatching(/^manifest\.knowledge\.bases\.1: /),
      expect.stringMatching(/^manifest\.knowledge\.bases\.2: /),
    ]);
    const tooMany = await save(Array.from({ length: 11 }, () => mine.id));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.validationErrors.join('\n')).toMatch(/knowledge\.bases/);
    const saved = await save([mine.id]);
    expect(saved.status).toBe(201);
    expect(saved.body.persona.manifest.knowledge.bases).toEqual([mine.id]);
  });
});
