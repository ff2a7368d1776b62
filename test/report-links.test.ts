import { startWorker } from '../src/app/runtime';
import { reportLinks } from '../src/call-reports';
import { SessionAnalyzedData, SessionEndedData } from '../src/events/payloads';
import { RESPONSE_CHECK_HEADER } from '../src/http/response-check';
import { readWav } from '../src/outbound/wav';
import { decodeMulaw } from '../src/telephony/audio';
import { writeRecordingChunk } from '../src/telephony/recordings/call-recordings';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { type LlmReply, type LlmRequest, startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { eventually, type Receiver, startReceiver } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const SUMMARY = 'The caller asked where order A-1 was; it ships today.';
const DAY_MS = 86_400_000;

/** The model double: an analysis gets a summary, a turn a plain reply. */
function model(req: LlmRequest): LlmReply {
  const system = String(req.messages[0]?.content ?? '');
  return {
    content: system.startsWith('You analyse') ? JSON.stringify({ summary: SUMMARY }) : 'It ships today.',
  };
}

/** A GET without any credentials: status, type, and the body as bytes and (when it is) JSON. */
async function open(url: string) {
  const res = await fetch(url);
  if (res.headers.get(RESPONSE_CHECK_HEADER)) throw new Error(`${url}: an answer off its declared schema`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  let json: any;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes, json };
}

/** `url` with its query parameter `name` set to `value`. */
function withParam(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}

/** A 403 with the error body, and nothing of the resource. */
function expectRefused(got: Awaited<ReturnType<typeof open>>, message: RegExp) {
  expect(got.status).toBe(403);
  expect(got.type).toMatch(/^application\/json/);
  expect(got.json).toMatchObject({ success: false, code: 'FORBIDDEN' });
  expect(got.json.error).toMatch(message);
  expect(got.json.data).toBeUndefined();
}

describe('end-of-call links (docs/sessions.md "End-of-call links")', () => {
  let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let app: TestApp;
  let stopWorker: () => Promise<void>;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let receiver: Receiver;
  let dev: Developer;
  let other: Developer;
  let personaId: string;
  const platform = (method: string, path: string, body?: unknown, key = dev.testKey) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });
  const knex = () => app.ctx.orm.em.getConnection().getKnex();

  /** The events of `type` about `sessionId` the receiver got (waits for the first). */
  const delivered = (type: string, sessionId: string) =>
    eventually<any[]>(async () => {
      const found: any[] = receiver.requests
        .map((r) => JSON.parse(r.rawBody))
        .filter((e) => e.type === type && e.data.sessionId === sessionId);
      return found.length ? found : undefined;
    }, 30_000);

  /** A session (`recording` as asked) with one turn; answers its id. */
  const sessionWithTurn = async (recording = false) => {
    const started = await platform('POST', '/sessions', { personaId, userId: 'caller-1', recording });
    expect(started.status).toBe(201);
    const id = started.body.data.id as string;
    expect((await platform('POST', `/sessions/${id}/turns`, { text: 'Where is order A-1?' })).status).toBe(
      200,
    );
    return id;
  };
  const end = async (id: string) => expect((await platform('POST', `/sessions/${id}/end`)).status).toBe(200);

  /** A phone call of the session (as a call's stream would have linked it), with one recorded chunk. */
  async function recordedCall(sessionId: string): Promise<string> {
    const callId = `call_links${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    await knex().raw(
      `insert into calls (id, account_id, environment, phone_number_id, persona_id, session_id, direction,
         "from", "to", status, max_duration_s, created_at, updated_at)
       values (?, ?, 'test', 'pn_links', ?, ?, 'inbound', '+14155550100', '+14155550123', 'in-progress', 600, now(), now())`,
      [callId, dev.publisherId, personaId, sessionId],
    );
    await writeRecordingChunk(knex(), callId, {
      index: 0,
      caller: Buffer.alloc(800, 0x10),
      agent: Buffer.alloc(800, 0x20),
    });
    return callId;
  }

  beforeAll(async () => {
    db = await createIsolatedDatabase('links');
    llm = await startLlmDouble();
    llm.script(model);
    app = await startTestApp({
      DATABASE_URL: db.url,
      TEMPORAL_TASK_QUEUE: `vp-links-${process.pid}`,
      LLM_BASE_URL: llm.baseUrl,
      RATE_LIMITS: 'off',
    });
    // PUBLIC_URL, which the links are made of: the app's address is known once it listens
    (app.ctx.config as { publicUrl?: string }).publicUrl = app.baseUrl;
    stopWorker = (await startWorker(app.ctx, TEST_ENV.temporalAddress())).stop;
    dev = await newDeveloper(app, 'links');
    other = await newDeveloper(app, 'links-other');
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: { ...completeManifest('links-agent'), analysis: { summary: true } } },
    });
    expect(created.status).toBe(201);
    personaId = created.body.persona.id;
    receiver = await startReceiver();
    const hook = await platform('POST', '/webhooks', {
      name: 'end of call',
      url: receiver.url,
      events: ['session.ended', 'session.analyzed'],
    });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await stopWorker?.();
    await app?.close();
    await receiver?.close();
    await llm?.close();
    await db?.drop();
  });

  it('session.ended keeps its fields and links the transcript, which opens without a key', async () => {
    const id = await sessionWithTurn();
    const before = Date.now();
    await end(id);
    const [event] = await delivered('session.ended', id);
    const data = SessionEndedData.parse(event.data);
    expect(data).toMatchObject({
      sessionId: id,
      userId: 'caller-1',
      personaId,
      turnCount: 1,
      reason: 'ended',
    });
    expect(data.duration).toBeGreaterThan(0);
    expect(data.recordingUrl).toBeNull();
    expect(data.transcriptUrl).toMatch(
      new RegExp(
        `^${app.baseUrl}/api/v2/developers/links/sessions/${id}/transcript\\?expires=\\d+&signature=[0-9a-f]{64}$`,
      ),
    );
    const expiresAt = Date.parse(data.linksExpireAt);
    expect(expiresAt).toBeGreaterThan(before + 7 * DAY_MS - 60_000);
    expect(expiresAt).toBeLessThan(Date.now() + 7 * DAY_MS + 1000);
    expect(Number(new URL(data.transcriptUrl).searchParams.get('expires')) * 1000).toBe(expiresAt);

    const got = await open(data.transcriptUrl);
    expect(got.status).toBe(200);
    const detail = await platform('GET', `/sessions/${id}`);
    expect(got.json.data).toEqual({ sessionId: id, transcript: detail.body.data.transcript });
    expect(got.json.data.transcript).toHaveLength(1);
    expect(got.json.data.transcript[0].text).toBe('Where is order A-1?');
  });

  it('documents both events as OpenAPI webhooks, and the link routes without security', async () => {
    const doc = (await call(app.baseUrl, 'GET', '/openapi.json')).body;
    const dataOf = (type: string) => {
      const envelope = doc.webhooks[type].post.requestBody.content['application/json'].schema;
      const data = envelope.properties.data;
      return data.$ref ? doc.components.schemas[data.$ref.split('/').pop()] : data;
    };
    for (const type of ['session.ended', 'session.analyzed'])
      expect(dataOf(type).required).toEqual(
        expect.arrayContaining(['sessionId', 'transcriptUrl', 'recordingUrl', 'linksExpireAt']),
      );
    expect(dataOf('session.analyzed').required).toContain('summary');
    for (const path of ['/links/sessions/{id}/transcript', '/links/calls/{id}/recording']) {
      const route = doc.paths[`/api/v2/developers${path}`].get;
      expect(route.security).toEqual([]); // public: the signed link is the credential
      expect(route.parameters.map((p: { name: string }) => p.name)).toEqual(
        expect.arrayContaining(['id', 'expires', 'signature']),
      );
    }
  });

  it('session.analyzed carries the summary and the same links', async () => {
    const id = await sessionWithTurn();
    await end(id);
    const [event] = await delivered('session.analyzed', id);
    const data = SessionAnalyzedData.parse(event.data);
    expect(data).toMatchObject({ sessionId: id, personaId, status: 'completed', summary: SUMMARY });
    expect(data.recordingUrl).toBeNull();
    const got = await open(data.transcriptUrl);
    expect(got.status).toBe(200);
    expect(got.json.data.sessionId).toBe(id);
    expect(got.json.data.transcript).toHaveLength(1);
  });

  it("links a recorded call's recording, which opens as the WAV GET /calls/:id/recording streams", async () => {
    const id = await sessionWithTurn(true);
    const callId = await recordedCall(id);
    await end(id);
    const ended = SessionEndedData.parse((await delivered('session.ended', id))[0].data);
    expect(ended.recordingUrl).toMatch(
      new RegExp(
        `^${app.baseUrl}/api/v2/developers/links/calls/${callId}/recording\\?expires=\\d+&signature=[0-9a-f]{64}$`,
      ),
    );
    const wav = await open(ended.recordingUrl!);
    expect(wav.status).toBe(200);
    expect(wav.type).toMatch(/^audio\/wav/);
    const audio = readWav(wav.bytes);
    expect(audio).toMatchObject({ channels: 2, sampleRate: 8000, bitsPerSample: 16 });
    expect(audio.samples.length).toBe(800 * 2);
    expect(audio.samples[0]).toBe(decodeMulaw(Uint8Array.of(0x10))[0]);
    expect(audio.samples[1]).toBe(decodeMulaw(Uint8Array.of(0x20))[0]);
    // the same bytes as the API key's route
    const keyed = await fetch(`${app.baseUrl}/api/v2/developers/calls/${callId}/recording`, {
      headers: { authorization: `Bearer ${dev.testKey}` },
    });
    expect(Buffer.from(await keyed.arrayBuffer()).equals(Buffer.from(wav.bytes))).toBe(true);

    const analyzed = SessionAnalyzedData.parse((await delivered('session.analyzed', id))[0].data);
    expect(analyzed.summary).toBe(SUMMARY);
    expect(analyzed.recordingUrl).toContain(`/links/calls/${callId}/recording?`);
    expect((await open(analyzed.recordingUrl!)).status).toBe(200);
  });

  it('refuses a tampered or expired link with 403 and serves nothing', async () => {
    const id = await sessionWithTurn(true);
    const callId = await recordedCall(id);
    await end(id);
    const data = SessionEndedData.parse((await delivered('session.ended', id))[0].data);
    for (const url of [data.transcriptUrl, data.recordingUrl!]) {
      const signature = new URL(url).searchParams.get('signature')!;
      const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
      expectRefused(await open(withParam(url, 'signature', flipped)), /not valid/);
      expectRefused(await open(withParam(url, 'signature', signature.slice(0, 40))), /not valid/);
      const expires = Number(new URL(url).searchParams.get('expires'));
      expectRefused(await open(withParam(url, 'expires', String(expires + 86_400))), /not valid/);
      expect((await open(url)).status).toBe(200);
    }
    // well signed, but expired: a link made eight days ago
    const old = reportLinks(
      app.ctx,
      { accountId: dev.publisherId, sessionId: id, callId },
      Date.now() - 8 * DAY_MS,
    );
    expectRefused(await open(old.transcriptUrl), /expired/);
    expectRefused(await open(old.recordingUrl!), /expired/);
    // a query that is not a link's is refused as invalid input
    const bare = new URL(data.transcriptUrl);
    bare.search = '';
    expect((await open(bare.toString())).status).toBe(400);
    expect((await open(withParam(data.transcriptUrl, 'expires', 'soon'))).status).toBe(400);
  });

  it("does not open one resource with another's signature", async () => {
    const first = await sessionWithTurn(true);
    const firstCall = await recordedCall(first);
    await end(first);
    const second = await sessionWithTurn();
    await end(second);
    const a = SessionEndedData.parse((await delivered('session.ended', first))[0].data);
    const b = SessionEndedData.parse((await delivered('session.ended', second))[0].data);
    const query = (url: string) => new URL(url).search;
    const at = (path: string, url: string) => `${app.baseUrl}/api/v2/developers/links${path}${query(url)}`;
    // the second session's transcript with the first's signature, and the other way round
    expectRefused(await open(at(`/sessions/${second}/transcript`, a.transcriptUrl)), /not valid/);
    expectRefused(await open(at(`/sessions/${first}/transcript`, b.transcriptUrl)), /not valid/);
    // the call's recording with its session's transcript signature (same expiry, another resource)
    expectRefused(await open(at(`/calls/${firstCall}/recording`, a.transcriptUrl)), /not valid/);
    // a session that does not exist looks like a forged link
    expectRefused(await open(at('/sessions/sess_nosuchsession/transcript', a.transcriptUrl)), /not valid/);
    // signed for another account: the link names this session, but not its owner
    const foreign = reportLinks(app.ctx, {
      accountId: other.publisherId,
      sessionId: first,
      callId: firstCall,
    });
    expectRefused(await open(foreign.transcriptUrl), /not valid/);
    expectRefused(await open(foreign.recordingUrl!), /not valid/);
    // each link still opens its own resource
    expect((await open(a.transcriptUrl)).json.data.sessionId).toBe(first);
    expect((await open(b.transcriptUrl)).json.data.sessionId).toBe(second);
    expect((await open(a.recordingUrl!)).status).toBe(200);
  });
});
