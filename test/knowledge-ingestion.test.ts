import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import PDFDocument from 'pdfkit';
import { beginIngestion, finishIngestion, indexSourceChunks } from '../src/knowledge/ingestion-steps';
import { type KnowledgeRig, startKnowledgeRig } from './support/knowledge';

/** A PDF written by pdfkit: one page per entry, paragraphs separated by a blank line. */
function makePdf(pages: string[][]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const pdf = new PDFDocument();
    const parts: Buffer[] = [];
    pdf.on('data', (part: Buffer) => parts.push(part));
    pdf.on('end', () => resolve(Buffer.concat(parts)));
    pdf.on('error', reject);
    pages.forEach((paragraphs, index) => {
      if (index > 0) pdf.addPage();
      for (const paragraph of paragraphs) pdf.text(paragraph).moveDown();
    });
    pdf.end();
  });
}

/** An HTML page of `sections` sections, each naming `version` (what a refresh changes). */
function handbookPage(version: string, sections = 12): string {
  const body = Array.from(
    { length: sections },
    (_, i) =>
      `<h2>Policy ${i}</h2><p>${`Policy ${i} of handbook ${version}: staff follow rule ${i} every day. `.repeat(12)}</p>`,
  ).join('\n');
  return `<!doctype html><html><head><title>Handbook ${version}</title></head><body><main><h1>Handbook</h1>${body}</main></body></html>`;
}

/** A small site to crawl: a start page linking to two pages, one of which links deeper. */
const GUIDE_SITE: Record<string, string> = {
  '/guide/index.html': `<!doctype html><html><body><nav><a href="/guide/returns.html">Returns</a></nav><main><h1>Guide</h1><p>Welcome to the guide. <a href="/guide/shipping.html">Shipping</a></p></main></body></html>`,
  '/guide/returns.html': `<!doctype html><html><body><main><h1>Returns</h1><p>Zebra-striped parcels come back within forty days. <a href="/guide/deep.html">More</a></p></main></body></html>`,
  '/guide/shipping.html': `<!doctype html><html><body><main><h1>Shipping</h1><p>Parcels leave the depot every Tuesday by hovercraft.</p></main></body></html>`,
  '/guide/deep.html': `<!doctype html><html><body><main><h1>Deep</h1><p>Quokka warranty terms live two links away.</p></main></body></html>`,
};

/**
 * Each source's ingestion as a durable workflow (issue 43, docs/knowledge.md "Ingestion"): a text, a
 * PDF and a DOCX made here, an HTML page served by a local server (the outbound guard allows loopback
 * here), a corrupt PDF failed with the extraction's reason, a refresh that swaps the chunks at once,
 * a delete that removes them before it answers, and the events.
 */
describe('knowledge ingestion', () => {
  let rig: KnowledgeRig;
  let server: http.Server;
  let page = handbookPage('v1');
  let pageUrl = '';
  let baseId = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const site = GUIDE_SITE[req.url ?? ''];
      if (req.url === '/robots.txt' || (req.url?.startsWith('/guide/') && !site)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(site ?? page);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/handbook.html`;
    rig = await startKnowledgeRig({ OUTBOUND_ALLOW_PRIVATE: 'true', OUTBOUND_ALLOW_HTTP: 'true' });
    baseId = (await rig.api('POST', '/knowledge-bases', { name: 'Ingestion' })).body.data.id;
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
    server?.close();
  });

  const sources = () => `/knowledge-bases/${baseId}/sources`;
  const search = async (q: string, limit = 10) =>
    (await rig.api('GET', `/knowledge-bases/${baseId}/search?q=${encodeURIComponent(q)}&limit=${limit}`)).body
      .data as { sourceId: string; sourceName: string; heading: string | null; text: string }[];
  const sql = async (query: string, bindings: unknown[]) =>
    rig.app.ctx.orm.em.getConnection().execute(query, bindings);
  const events = async (sourceId: string) =>
    (
      await sql(
        "select type, payload from events where type like 'knowledge.source.%' and payload::jsonb->'data'->>'sourceId' = ? order by created_at",
        [sourceId],
      )
    ).map((r) => JSON.parse((r as { payload: string }).payload));

  it('indexes a text source and emits knowledge.source.ready', async () => {
    const created = await rig.api('POST', sources(), {
      type: 'text',
      name: 'Returns FAQ',
      text: '# Returns\n\nUnworn shoes can be returned within 30 days.\n\n# Shipping\n\nParcels leave the warehouse daily.',
    });
    const ready = await rig.waitForSource(baseId, created.body.data.id, ['ready', 'failed']);
    expect(ready).toMatchObject({ status: 'ready', failureReason: null, chunks: 2 });
    expect(ready.indexedAt).not.toBeNull();
    const hits = await search('returned shoes');
    expect(hits[0]).toMatchObject({ sourceName: 'Returns FAQ', heading: 'Returns' });
    const [event] = await events(created.body.data.id);
    expect(event).toMatchObject({
      type: 'knowledge.source.ready',
      data: {
        sourceId: created.body.data.id,
        knowledgeBaseId: baseId,
        type: 'text',
        generation: 1,
        chunks: 2,
      },
    });
  });

  it('indexes a PDF and a DOCX uploaded as files', async () => {
    const pdf = await makePdf([
      ['Warranty terms', 'Every kettle carries a two-year warranty against defects.'],
    ]);
    const docx = await Packer.toBuffer(
      new Document({
        sections: [
          {
            children: [
              new Paragraph({ text: 'Loyalty programme', heading: HeadingLevel.HEADING_1 }),
              new Paragraph('Members collect one stamp per purchase and a free coffee after nine stamps.'),
            ],
          },
        ],
      }),
    );
    const a = await rig.upload(baseId, {
      fileName: 'warranty.pdf',
      contentType: 'application/pdf',
      bytes: pdf,
    });
    const b = await rig.upload(baseId, {
      fileName: 'loyalty.docx',
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      bytes: docx,
      name: 'Loyalty',
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect((await rig.waitForSource(baseId, a.body.data.id, ['ready', 'failed'])).status).toBe('ready');
    expect((await rig.waitForSource(baseId, b.body.data.id, ['ready', 'failed'])).status).toBe('ready');
    expect((await search('kettle warranty'))[0].sourceName).toBe('warranty.pdf');
    expect((await search('free coffee stamps'))[0]).toMatchObject({
      sourceName: 'Loyalty',
      heading: 'Loyalty programme',
    });
  });

  it('fails a corrupt PDF with the extraction reason, harming nothing else', async () => {
    const before = await search('warranty');
    const corrupt = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)]);
    const res = await rig.upload(baseId, {
      fileName: 'broken.pdf',
      contentType: 'application/pdf',
      bytes: corrupt,
    });
    const failed = await rig.waitForSource(baseId, res.body.data.id, ['ready', 'failed']);
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toMatch(/PDF/);
    expect(failed.chunks).toBe(0);
    const [event] = await events(res.body.data.id);
    expect(event).toMatchObject({ type: 'knowledge.source.failed', data: { reason: failed.failureReason } });
    expect(await search('warranty')).toEqual(before);
  });

  it('fetches a URL source through the outbound guard', async () => {
    const created = await rig.api('POST', sources(), { type: 'url', url: pageUrl });
    const ready = await rig.waitForSource(baseId, created.body.data.id, ['ready', 'failed']);
    expect(ready).toMatchObject({ status: 'ready', type: 'url', name: pageUrl });
    expect(ready.bytes).toBe(Buffer.byteLength(page));
    expect(ready.contentType).toMatch(/^text\/html/);
    expect((await search('"handbook v1"')).length).toBeGreaterThan(0);
    // a host on a private network is refused when the guard does not allow it: a failed source, with why
    const strict = await startKnowledgeRig({ OUTBOUND_ALLOW_PRIVATE: 'false', OUTBOUND_ALLOW_HTTP: 'true' });
    try {
      const kb = (await strict.api('POST', '/knowledge-bases', { name: 'Strict' })).body.data.id;
      const blocked = await strict.api('POST', `/knowledge-bases/${kb}/sources`, {
        type: 'url',
        url: pageUrl,
      });
      const refused = await strict.waitForSource(kb, blocked.body.data.id, ['ready', 'failed']);
      expect(refused.status).toBe('failed');
      expect(refused.failureReason).toMatch(/private network/);
    } finally {
      await strict.stop();
    }
  });

  it('crawls a URL source on its site to the depth asked, each page a document', async () => {
    const start = pageUrl.replace('/handbook.html', '/guide/index.html');
    const created = await rig.api('POST', sources(), {
      type: 'url',
      url: start,
      name: 'Guide',
      crawl: { maxDepth: 1, maxPages: 10 },
    });
    expect(created.status).toBe(201);
    const ready = await rig.waitForSource(baseId, created.body.data.id, ['ready', 'failed']);
    expect(ready.status).toBe('ready');
    const documents = await sql(
      'select url from knowledge_source_documents where source_id = ? order by ordinal',
      [created.body.data.id],
    );
    expect(documents.map((d) => (d as { url: string }).url.replace(/^http:\/\/[^/]+/, ''))).toEqual([
      '/guide/index.html',
      '/guide/returns.html',
      '/guide/shipping.html',
    ]);
    expect((await search('zebra parcels')).map((h) => h.sourceName)).toContain('Guide');
    expect((await search('hovercraft')).map((h) => h.sourceName)).toContain('Guide');
    // two links away: past the depth asked
    expect((await search('quokka')).filter((h) => h.sourceName === 'Guide')).toEqual([]);
  });

  it('swaps the chunks at once on refresh: a search sees the old ones or the new ones, never a mix', async () => {
    const created = await rig.api('POST', sources(), { type: 'url', url: pageUrl, name: 'Refreshed' });
    const id = created.body.data.id as string;
    const first = await rig.waitForSource(baseId, id, ['ready', 'failed']);
    expect(first.status).toBe('ready');
    page = handbookPage('v2');
    const refreshed = await rig.api('POST', `${sources()}/${id}/refresh`);
    expect(refreshed.status).toBe(202);
    expect(refreshed.body.data.status).toBe('pending');
    const seen = new Set<string>();
    let done = false;
    const watching = (async () => {
      while (!done) {
        const hits = (await search('staff follow rule', 50)).filter((h) => h.sourceName === 'Refreshed');
        const versions = new Set(hits.map((h) => (h.text.includes('handbook v2') ? 'v2' : 'v1')));
        expect(versions.size).toBeLessThanOrEqual(1);
        for (const v of versions) seen.add(v);
      }
    })();
    const second = await rig.waitForSource(baseId, id, ['ready', 'failed']);
    done = true;
    await watching;
    expect(second).toMatchObject({ status: 'ready', chunks: first.chunks });
    expect(seen.has('v1')).toBe(true);
    const rows = await sql('select distinct generation from knowledge_chunks where source_id = ?', [id]);
    expect(rows).toEqual([{ generation: 2 }]);
    const hits = (await search('"handbook v1"', 50)).filter((h) => h.sourceName === 'Refreshed');
    expect(hits).toEqual([]);
    expect((await events(id)).map((e) => [e.type, e.data.generation])).toEqual([
      ['knowledge.source.ready', 1],
      ['knowledge.source.ready', 2],
    ]);
  });

  it('resumes after a crash: each step run again writes the same chunks and one event', async () => {
    const created = await rig.api('POST', sources(), {
      type: 'text',
      name: 'Replayed',
      text: '# Lockers\n\nLockers are emptied every Friday.\n\n# Keys\n\nSpare keys are at the front desk.',
    });
    const id = created.body.data.id as string;
    await rig.waitForSource(baseId, id, ['ready']);
    // a refresh committed whose workflow is run here by hand, each step twice (a worker lost mid-step)
    await sql(`update knowledge_sources set status = 'pending', ingest_generation = 2 where id = ?`, [id]);
    const ctx = rig.app.ctx;
    const ref = { sourceId: id, generation: 2 };
    expect(await beginIngestion(ctx, ref)).toMatchObject({ type: 'text' });
    expect(await beginIngestion(ctx, ref)).toMatchObject({ type: 'text' });
    expect(await indexSourceChunks(ctx, ref)).toEqual({ kind: 'done', chunks: 2 });
    // the old generation is still the one searched while the new one is written
    expect((await search('lockers friday')).length).toBe(1);
    expect(await indexSourceChunks(ctx, ref)).toEqual({ kind: 'done', chunks: 2 });
    await finishIngestion(ctx, { ...ref, outcome: { kind: 'done', chunks: 2 } });
    await finishIngestion(ctx, { ...ref, outcome: { kind: 'done', chunks: 2 } });
    const rows = await sql(
      'select generation, count(*)::int as n from knowledge_chunks where source_id = ? group by generation',
      [id],
    );
    expect(rows).toEqual([{ generation: 2, n: 2 }]);
    expect((await events(id)).map((e) => e.data.generation)).toEqual([1, 2]);
    // a run of a generation superseded (or of a deleted source) writes nothing
    expect(await beginIngestion(ctx, { sourceId: id, generation: 1 })).toBeNull();
    expect(await indexSourceChunks(ctx, { sourceId: id, generation: 1 })).toEqual({ kind: 'gone' });
  });

  it('starts the ingestion of a committed source whose start did not happen (the outbox)', async () => {
    // as the API leaves it when Temporal cannot be reached: committed, pending, no workflow
    const created = await rig.api('POST', sources(), {
      type: 'text',
      name: 'Outboxed',
      text: 'Kayaks rent by the hour.',
    });
    const id = created.body.data.id as string;
    await rig.waitForSource(baseId, id, ['ready']);
    await sql(
      `update knowledge_sources set status = 'pending', ingest_generation = 2, workflow_started_at = null,
         updated_at = now() - interval '10 seconds' where id = ?`,
      [id],
    );
    // the run's dispatcher (global setup) sweeps the unstarted rows and starts the workflow
    const ready = await rig.waitForSource(baseId, id, ['ready'], 60_000);
    expect(ready.chunks).toBe(1);
    const [row] = await sql('select generation, workflow_started_at from knowledge_sources where id = ?', [
      id,
    ]);
    expect(row.generation).toBe(2);
    expect(row.workflow_started_at).not.toBeNull();
  }, 90_000);

  it('deletes a source with its chunks before answering', async () => {
    const created = await rig.api('POST', sources(), {
      type: 'text',
      name: 'Doomed',
      text: 'Zeppelins depart hourly.',
    });
    const id = created.body.data.id as string;
    await rig.waitForSource(baseId, id, ['ready']);
    expect((await search('zeppelins')).length).toBe(1);
    expect((await rig.api('DELETE', `${sources()}/${id}`)).status).toBe(200);
    expect(await sql('select count(*)::int as n from knowledge_chunks where source_id = ?', [id])).toEqual([
      { n: 0 },
    ]);
    expect(await search('zeppelins')).toEqual([]);
  });
});
