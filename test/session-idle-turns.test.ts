/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { startWorker } from '../src/app/runtime';
import { sessionStateQuery, turnLeaseSignal } from '../workflows/messages';
import { TEST_ENV } from './support/env';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';
import { openStream } from './support/voice-stream';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

/** The session's idle timeout here: the turns below last longer than it. */
const IDLE_TIMEOUT_S = 5;
const PLANNED =
  'Sure, I can help with that. Your parcel left our warehouse this morning and is on its way. It should reach you on Thursday before noon.';

/**
 * A turn under way holds its session open, whatever the transport (docs/sessions.md "Idleness"): the
 * session's idle timer counts from the end of the last turn, a turn that began but is never recorded
 * holds it only until its lease lapses, and `end` records the turn under way first.
 */
describe('a turn under way holds its session open', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: LlmDouble;
  let dev: Developer;
  let personaId: string;
  const api = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
  const start = async () => {
    const res = await api('POST', '/sessions', { personaId, userId: 'idler' });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const detail = async (id: string) => (await api('GET', `/sessions/${id}`)).body.data;
  const endedIdle = (id: string) =>
    eventually(async () => {
      const session = await detail(id);
      return session.status === 'ended' && session;
    }, 30_000);
  const stateOf = (id: string) => app.ctx.temporal.workflow.getHandle(id).query(sessionStateQuery);

  beforeAll(async () => {
    llm = await startLlmDouble();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      SESSION_IDLE_TIMEOUT_S: String(IDLE_TIMEOUT_S),
      TEMPORAL_TASK_QUEUE: `vp-idle-turns-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'idle-turns');
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('idle-agent') },
    });
    personaId = created.body.persona.id;
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await llm?.close();
  });
  beforeEach(() => llm.script(undefined));

  it('a REST turn whose reply is slower than the idle timeout is answered and recorded; idleness counts from its end', async () => {
    const id = await start();
    llm.script(() => ({ content: 'Here is a slow answer.', delayMs: (IDLE_TIMEOUT_S + 2) * 1000 }));
    const turn = await api('POST', `/sessions/${id}/turns`, { text: 'Take your time' });
    expect(turn.status).toBe(200);
    expect(turn.body.data).toMatchObject({
      index: 1,
      route: 'llm',
      reply: { text: 'Here is a slow answer.' },
    });
    // the record released the session: it idles from here, and ends by itself with its one turn
    expect(await stateOf(id)).toMatchObject({ status: 'active', turnsUnderWay: [] });
    const ended = await endedIdle(id);
    expect(ended).toMatchObject({ endReason: 'idle_timeout', turnCount: 1 });
    expect(ended.transcript).toEqual([turn.body.data]);
  });

  it('a streamed reply that plays past the idle timeout is recorded once, then the session idles', async () => {
    const id = await start();
    const client = await openStream(app.baseUrl, id, { key: dev.testKey });
    await client.next('session.ready');
    await client.next('reply.done', (m) => m.turnId === 'greeting');
    llm.script(() => ({ content: PLANNED, delayMs: 50, tokenDelayMs: 40 }));
    client.sendText('Where is my parcel?');
    const recorded = await Promise.race([
      client.next('turn.recorded'),
      client.next('error').then((e) => Promise.reject(new Error(`${e.code}: ${e.message}`))),
    ]);
    expect(recorded.turn).toMatchObject({ index: 1, reply: { text: PLANNED }, spokenText: PLANNED });
    // every delta and the reply's audio went out before the record
    const deltas = client.received.filter((m) => m.type === 'reply.delta' && m.turnId === recorded.turnId);
    expect(deltas.map((m) => (m as { text: string }).text).join('')).toBe(PLANNED);
    const ended = await endedIdle(id);
    expect(ended).toMatchObject({ endReason: 'idle_timeout', turnCount: 1 });
    expect(ended.transcript).toEqual([recorded.turn]);
    expect(client.received.filter((m) => m.type === 'error')).toEqual([]);
    client.close();
  });

  it('`end` during a slow turn records the turn first, then ends the session', async () => {
    const id = await start();
    llm.script(() => ({ content: 'Almost done.', delayMs: 3_000 }));
    const turn = api('POST', `/sessions/${id}/turns`, { text: 'One more thing' });
    await eventually(async () => (await stateOf(id)).turnsUnderWay.length === 1);
    const end = await api('POST', `/sessions/${id}/end`);
    expect(end.status).toBe(200);
    expect(end.body.data).toMatchObject({ status: 'ended', turnCount: 1 });
    const answered = await turn;
    expect(answered.status).toBe(200);
    expect(answered.body.data).toMatchObject({ index: 1, reply: { text: 'Almost done.' } });
    expect((await detail(id)).transcript).toEqual([answered.body.data]);
  });

  it('a turn that began but is never recorded holds the session only until its lease lapses', async () => {
    const id = await start();
    const handle = app.ctx.temporal.workflow.getHandle(id);
    // as an API process that died mid-turn leaves it: one lease, never renewed, never recorded
    const leaseMs = (IDLE_TIMEOUT_S + 3) * 1000;
    await handle.signal(turnLeaseSignal, { turnId: 'turn-of-a-dead-process', leaseMs });
    expect((await stateOf(id)).turnsUnderWay).toEqual(['turn-of-a-dead-process']);
    const ended = await handle.result();
    expect(ended.turnCount).toBe(0);
    // held past the idle timeout, up to the lapse of the lease
    expect(ended.durationMs).toBeGreaterThanOrEqual(leaseMs - 1_000);
    expect(await detail(id)).toMatchObject({ status: 'ended', endReason: 'idle_timeout', transcript: [] });
  });

  it('a lease given back (the turn failed) holds the session no longer', async () => {
    const id = await start();
    const handle = app.ctx.temporal.workflow.getHandle(id);
    await handle.signal(turnLeaseSignal, { turnId: 'failed-turn', leaseMs: 120_000 });
    await handle.signal(turnLeaseSignal, { turnId: 'failed-turn', leaseMs: 0 });
    expect((await stateOf(id)).turnsUnderWay).toEqual([]);
    // a renewal that arrives after it changes nothing
    await handle.signal(turnLeaseSignal, { turnId: 'failed-turn', leaseMs: 120_000 });
    expect((await stateOf(id)).turnsUnderWay).toEqual([]);
    expect((await endedIdle(id)).endReason).toBe('idle_timeout');
  });
});
