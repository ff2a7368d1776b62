/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { startWorker } from '../src/app/runtime';
import { TEST_ENV } from './support/env';
import { startLlmDouble } from './support/llm-double';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';
import { audioOf, openStream, refusedUpgrade, rms, streamUrl, typesOf } from './support/voice-stream';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

const PLANNED =
  'Sure, I can help with that. Your parcel left our warehouse this morning and is on its way. It should reach you on Thursday before noon.';

/**
 * The live voice stream (docs/voice-stream.md) with text input: a real WebSocket client (the
 * project's own, on the `ws` package), the app and a worker in this process, an LLM double that
 * streams like a hosted model and a real MCP server.
 */
describe('the live voice stream: text in, streamed speech out', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: LlmDouble;
  let mcp: McpTestServer;
  let dev: Developer;
  let personaId: string;
  const api = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
  const start = async (extra: Record<string, unknown> = {}) => {
    const res = await api('POST', '/sessions', { personaId, userId: 'streamer', ...extra });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const open = async (id: string) => {
    const client = await openStream(app.baseUrl, id, { key: dev.testKey });
    await client.next('session.ready');
    return client;
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    mcp = await startMcpTestServer();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-stream-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'stream');
    const manifest = completeManifest('stream-agent');
    manifest.behaviors = { ...manifest.behaviors, thinking_sounds: ['One moment while I check.'] } as never;
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest },
    });
    personaId = created.body.persona.id;
    expect((await api('POST', '/mcp-servers', { name: 'orders', endpoint: mcp.url })).status).toBe(201);
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await mcp?.close();
    await llm?.close();
  });
  beforeEach(() => llm.script(undefined));

  it('greets, then answers text with deltas, then audio that is speech, then the recorded turn', async () => {
    const id = await start();
    const client = await openStream(app.baseUrl, id, { key: dev.testKey });
    const audio = audioOf(client);
    const ready = await client.next('session.ready');
    expect(ready).toMatchObject({
      sessionId: id,
      greeting: 'Hi, this is Ava from Homegoods. How can I help?',
    });
    await client.next('reply.done', (m) => m.turnId === 'greeting');
    expect(rms(audio('greeting'))).toBeGreaterThan(300);

    llm.script(() => ({ content: PLANNED, delayMs: 50, tokenDelayMs: 40 }));
    client.sendText('Where is my parcel?');
    const recorded = await client.next('turn.recorded');
    const { turnId } = recorded;
    const types = typesOf(client.received, turnId);
    expect(types[0]).toBe('reply.delta');
    expect(types).toContain('reply.audio');
    expect(types.slice(-2)).toEqual(['reply.done', 'turn.recorded']);
    const deltas = client.received.filter((m) => m.type === 'reply.delta' && m.turnId === turnId);
    expect(deltas.length).toBeGreaterThan(10);
    // the first audio went out before the model had finished (the first segment is a clause)
    const firstAudio = client.received.findIndex((m) => m.type === 'reply.audio' && m.turnId === turnId);
    const lastDelta = client.received.findLastIndex((m) => m.type === 'reply.delta' && m.turnId === turnId);
    expect(firstAudio).toBeLessThan(lastDelta);
    expect(client.received[firstAudio]).toMatchObject({ segment: 0, text: 'Sure, I can help with that.' });
    expect(rms(audio(turnId))).toBeGreaterThan(300);
    // the record is the REST turn's shape, with what was spoken
    expect(recorded.turn).toMatchObject({
      index: 1,
      route: 'llm',
      reply: { text: PLANNED },
      interrupted: false,
      spokenText: PLANNED,
    });
    const detail = await api('GET', `/sessions/${id}`);
    expect(detail.body.data.transcript).toEqual([recorded.turn]);
    client.close();
  });
});
