/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import { ERROR_CLASSES, OPERATIONS, VoicePlatform } from '../sdk/src';
import { startWorker } from '../src/app/runtime';
import { ERROR_CODES } from '../src/http/errors';
import { TEST_ENV } from './support/env';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { type Developer, newDeveloper, setPlan, startTestApp, type TestApp } from './support/test-app';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

/**
 * The SDK (sdk/, issue 44 item 2) against a running platform: the generated resources of each API
 * root (platform, console), auto-pagination and the live stream.
 */
describe('the SDK against the platform', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: LlmDouble;
  let dev: Developer;
  let client: VoicePlatform;
  let consoleClient: VoicePlatform;

  beforeAll(async () => {
    llm = await startLlmDouble();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-sdk-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'sdk');
    await setPlan(app, dev.publisherId, 'enterprise'); // 120 webhooks below
    client = new VoicePlatform({ apiKey: dev.testKey, baseUrl: app.baseUrl });
    consoleClient = new VoicePlatform({ apiKey: dev.token, baseUrl: app.baseUrl });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await llm?.close();
  });

  it('has a method for every operation id, and an error class for every error code', () => {
    for (const id of Object.keys(OPERATIONS)) {
      const method = id.split('.').reduce<any>((node, part) => node?.[part], client);
      expect([id, typeof method]).toEqual([id, 'function']);
    }
    expect(Object.keys(ERROR_CLASSES).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('creates, reads, updates, lists and deletes a webhook', async () => {
    const created = await client.webhooks.create({
      name: 'orders',
      url: 'https://example.com/hooks/orders',
      events: ['session.ended'],
    });
    expect(created).toMatchObject({ name: 'orders', secret: expect.stringMatching(/^whsec_/) });
    const read = await client.webhooks.get(created.id);
    expect(read.id).toBe(created.id);
    const updated = await client.webhooks.update(created.id, { name: 'orders-2' });
    expect(updated.name).toBe('orders-2');
    const page = await client.webhooks.list({ limit: 5 });
    expect(page.data.map((w) => w.id)).toContain(created.id);
    expect(page.pagination).toMatchObject({ limit: 5, offset: 0 });
    await client.webhooks.delete(created.id);
    await expect(client.webhooks.get(created.id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('pages through 120 webhooks with for await', async () => {
    const made = new Set<string>();
    for (let i = 0; i < 120; i++) {
      const w = await client.webhooks.create({
        name: `page-${i}`,
        url: `https://example.com/h/${i}`,
        events: ['tool.failed'],
      });
      made.add(w.id);
    }
    const seen: string[] = [];
    for await (const w of client.webhooks.list({ limit: 50 })) seen.push(w.id);
    expect(seen.length).toBe(120);
    expect(new Set(seen)).toEqual(made);
    const pages = [];
    for await (const page of client.webhooks.list({ limit: 50 }).pages()) pages.push(page.data.length);
    expect(pages).toEqual([50, 50, 20]);
  }, 120_000);

  it('creates a persona through the console client, talks to it in a session, and lists phone numbers', async () => {
    const persona = await consoleClient.console.personas.create({ manifest: completeManifest('sdk-agent') });
    const personaId = (persona as { persona: { id: string } }).persona.id;
    const personas = await consoleClient.console.personas.list();
    expect(JSON.stringify(personas)).toContain(personaId);

    const session = await client.sessions.create({ personaId, userId: 'sdk-user' });
    const turn = await client.sessions.turns.create(session.id, { text: 'Where is my order?' });
    expect(turn).toMatchObject({ index: expect.any(Number), reply: { text: expect.any(String) } });
    const numbers = await client.phoneNumbers.list();
    expect(numbers.data).toEqual([]);
    expect(numbers.pagination.total).toBe(0);
    const everyNumber = await client.phoneNumbers.list().toArray();
    expect(everyNumber).toEqual([]);
  }, 60_000);

  it('streams a session live: ready, a text turn recorded, then ended', async () => {
    const persona = await consoleClient.console.personas.create({ manifest: completeManifest('sdk-stream') });
    const personaId = (persona as { persona: { id: string } }).persona.id;
    const session = await client.sessions.create({ personaId, userId: 'sdk-streamer' });
    const stream = await client.sessions.stream(session.id);
    const ready = await stream.ready;
    expect(ready).toMatchObject({ type: 'session.ready', sessionId: session.id });
    await stream.next('reply.done'); // the greeting
    const recorded = stream.next('turn.recorded');
    stream.sendText('Where is my parcel?');
    expect((await recorded).turn).toMatchObject({ reply: { text: expect.any(String) } });
    const ended = stream.next('session.ended');
    stream.end();
    expect(await ended).toMatchObject({ sessionId: session.id });
    await stream.closed;
  }, 60_000);
});
