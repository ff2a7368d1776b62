/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { startWorker } from '../src/app/runtime';
import { TEST_ENV } from './support/env';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';
import { openStream } from './support/voice-stream';

const PLANNED =
  'Sure, I can help with that. Your parcel left our warehouse this morning and is on its way. It should reach you on Thursday before noon.';

/**
 * An API process shutting down with a live call mid-reply (docs/voice-stream.md "Limits"): the stream
 * closes with 1001, and the process closes its Temporal and database connections only once the call
 * has ended, its turn recorded as interrupted and its session let go. A second API process (same
 * database, same Temporal) is the one that shuts down; the first reads what it left.
 */
describe('the live voice stream: an API process shutting down', () => {
  let app: TestApp;
  let leaving: TestApp | undefined;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let dev: Developer;
  let personaId: string;
  const env = () => ({
    LLM_BASE_URL: llm.baseUrl,
    TEMPORAL_TASK_QUEUE: `vp-stream-shutdown-${process.pid}`,
    RATE_LIMITS: 'off',
  });
  const api = (on: TestApp, method: string, path: string, body?: unknown) =>
    call(on.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });

  beforeAll(async () => {
    llm = await startLlmDouble();
    app = await startTestApp(env());
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'shutdown');
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('shutdown-agent') },
    });
    personaId = created.body.persona.id;
  });
  afterAll(async () => {
    await leaving?.close();
    await worker?.stop();
    await app?.close();
    await llm?.close();
  });

  it('the call ends before the process lets go of its connections: the turn is recorded, the session free', async () => {
    leaving = await startTestApp(env());
    const created = await api(leaving, 'POST', '/sessions', { personaId, userId: 'shutdown' });
    const id = created.body.data.id as string;
    const client = await openStream(leaving.baseUrl, id, { key: dev.testKey });
    await client.next('session.ready');
    llm.script(() => ({ content: PLANNED, tokenDelayMs: 60 }));
    client.sendText('Where is my parcel?');
    await client.next('reply.audio', (m) => m.turnId !== 'greeting');

    await leaving.close();
    leaving = undefined;

    // read at once, not eventually: the shutdown waited for the call's end
    const transcript = (await api(app, 'GET', `/sessions/${id}`)).body.data.transcript;
    expect(transcript).toHaveLength(1);
    expect(transcript[0]).toMatchObject({ interrupted: true });
    expect(PLANNED.startsWith(transcript[0].spokenText)).toBe(true);
    // the stream let go of the session: the other process takes a REST turn on it
    expect((await api(app, 'POST', `/sessions/${id}/turns`, { text: 'hello again' })).status).toBe(200);
    expect((await eventually(async () => client.closed))?.code).toBe(1001);
  });
});
