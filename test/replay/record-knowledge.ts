import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkflowHandle } from '@temporalio/client';
import { startKnowledgeRig } from '../support/knowledge';
import type { ScenarioName } from './histories';

/**
 * Two knowledge sources' ingestions: an HTML page fetched from a local server (`fetchUrlSource`),
 * extracted, chunked and made ready; and a corrupt PDF upload, failed with the extraction's reason.
 * Served by an app and worker of their own (the outbound guard allows loopback here).
 */
export async function recordKnowledge(
  record: (name: ScenarioName, handle: WorkflowHandle) => Promise<void>,
  stops: (() => Promise<unknown>)[],
): Promise<void> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<html><head><title>Help</title></head><body><h1>Returns</h1><p>Within 30 days.</p></body></html>',
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stops.push(() => new Promise((r) => server.close(r)));
  const rig = await startKnowledgeRig({ OUTBOUND_ALLOW_PRIVATE: 'true', OUTBOUND_ALLOW_HTTP: 'true' });
  stops.push(() => rig.stop());
  const kb = (await rig.api('POST', '/knowledge-bases', { name: 'Recorded' })).body.data.id as string;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/help.html`;
  const page = await rig.api('POST', `/knowledge-bases/${kb}/sources`, { type: 'url', url });
  const ready = await rig.waitForSource(kb, page.body.data.id, ['ready', 'failed']);
  if (ready.status !== 'ready') throw new Error(`url source: ${JSON.stringify(ready)}`);
  await record('ingest-knowledge-source-url-ready', rig.app.ctx.temporal.workflow.getHandle(ready.id));
  const corrupt = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(500, 0x41)]);
  const file = await rig.upload(kb, {
    fileName: 'broken.pdf',
    contentType: 'application/pdf',
    bytes: corrupt,
  });
  const failed = await rig.waitForSource(kb, file.body.data.id, ['ready', 'failed']);
  if (failed.status !== 'failed') throw new Error(`pdf source: ${JSON.stringify(failed)}`);
  await record('ingest-knowledge-source-pdf-failed', rig.app.ctx.temporal.workflow.getHandle(failed.id));
}
