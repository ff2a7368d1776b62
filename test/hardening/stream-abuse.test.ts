import { type AbusiveStream, floodFrames, openAbusiveStream } from '../support/abusive-stream';
import { type ApiProcess, healthzLatency, startApiProcess } from '../support/api-process';
import { TEST_ADMIN_TOKEN } from '../support/env';
import { startLlmDouble } from '../support/llm-double';
import { completeManifest } from '../support/personas';
import { startSttDouble } from '../support/stt-double';
import { call, type Developer, newDeveloper, setPlan, type TestApp } from '../support/test-app';
import { refusedUpgrade, streamUrl } from '../support/voice-stream';

/**
 * Issue 38 items 7, 8, 10 and 11: what one account can ask of the live stream. The API runs as its
 * own process, so its memory and its /healthz latency are measured apart from the abusive clients
 * (in this process); each bound is set against the same process's figures without the abuse.
 */
const LONG_REPLY = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} of a long answer tells the caller about their parcel in some detail.`,
).join(' ');

let api: ApiProcess;
let llm: Awaited<ReturnType<typeof startLlmDouble>>;
let stt: Awaited<ReturnType<typeof startSttDouble>>;
let baseline: { p50: number; p99: number };
const asApp = () => ({ baseUrl: api.baseUrl, dataDir: api.dataDir }) as TestApp;

/** A developer with a draft persona; `sessions(n)` starts n sessions with its test key. */
async function tenant(label: string, plan?: string) {
  const dev: Developer = await newDeveloper(asApp(), label);
  if (plan) await setPlan(asApp(), dev.publisherId, plan);
  const persona = await call(api.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: dev.token,
    body: { manifest: completeManifest(`abuse-${label}`) },
  });
  expect(persona.status).toBe(201);
  const session = async () => {
    const res = await call(api.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: dev.testKey,
      body: { personaId: persona.body.persona.id, userId: `caller-${label}` },
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  return { dev, session, open: async () => openAbusiveStream(api.baseUrl, await session(), dev.testKey) };
}

/** Waits until `streams` have all closed, or `ms` passed. */
const allClosed = (streams: AbusiveStream[], ms: number) =>
  Promise.all(streams.map((s) => s.untilClosed(ms)));
/**
 * A latency bound against the baseline: three times its p99, and never under 200 ms above it. What
 * it catches (a server buffering for a client that stopped reading) stalls /healthz for seconds;
 * on two cores shared with the synthesis, one collection of the heap is 100 ms (a CI run read 114 ms
 * against a 100 ms margin).
 */
const bound = (p99: number) => Math.max(3 * p99, p99 + 200);
/**
 * The API's output once it matches `pattern`, or as it is after `ms`: the server logs a close when
 * its socket has closed, which can come after the client saw the close frame, and the line then
 * crosses a pipe.
 */
async function outputMatching(pattern: RegExp, ms = 5000): Promise<string> {
  const deadline = Date.now() + ms;
  while (!pattern.test(api.output()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return api.output();
}

beforeAll(async () => {
  llm = await startLlmDouble();
  llm.script((req) =>
    String(req.messages.at(-1)?.content ?? '').includes('long')
      ? { content: LONG_REPLY, tokenDelayMs: 1 }
      : { content: 'Okay.' },
  );
  stt = await startSttDouble({ transcript: 'hello', delayMs: 10 });
  api = await startApiProcess({ LLM_BASE_URL: llm.baseUrl, STT_BASE_URL: stt.baseUrl });
  await healthzLatency(api.baseUrl, 50);
  baseline = await healthzLatency(api.baseUrl, 200);
  console.log(`baseline /healthz p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms`);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await llm?.close();
  await stt?.close();
});

describe('the live stream under abuse', () => {
  it('drops a client that stops reading, gives its memory back, and keeps /healthz fast', async () => {
    // pro: the readers' slots are still held while their last turns are recorded as the slow ones open
    const { open } = await tenant('slow-reader', 'pro');
    const askForLongAnswers = (streams: AbusiveStream[]) =>
      setInterval(() => {
        for (const s of streams) {
          if (!s.closed) s.ws.send(JSON.stringify({ type: 'input.text', text: 'a long answer please' }));
        }
      }, 1000);
    // the same talk with clients that read: what the process grows by anyway (speech threads, caches)
    const readers = await Promise.all([open(), open(), open()]);
    const r0 = api.rssMb();
    const readersTalk = askForLongAnswers(readers);
    const readersLatency = await healthzLatency(api.baseUrl, 150);
    await new Promise((r) => setTimeout(r, 5000));
    clearInterval(readersTalk);
    const readersGrew = api.rssMb() - r0;
    for (const s of readers) s.ws.close();

    const slow = await Promise.all([open(), open(), open()]);
    const before = api.rssMb();
    for (const s of slow) s.stopReading();
    const talk = askForLongAnswers(slow);
    const during = healthzLatency(api.baseUrl, 150);
    await allClosed(slow, 60_000);
    clearInterval(talk);
    const latency = await during;
    const grown = api.rssMb() - before;
    console.log(
      `slow readers: closed ${JSON.stringify(slow.map((s) => s.closed))}; RSS +${grown.toFixed(0)} MB (readers +${readersGrew.toFixed(0)} MB); /healthz p99 ${latency.p99.toFixed(1)} ms (readers ${readersLatency.p99.toFixed(1)} ms)`,
    );
    for (const s of slow) expect(s.closed).toBeDefined();
    // each dropped stream held at most its 4 MiB of unsent bytes (the rest is the heap's own slack)
    expect(grown).toBeLessThan(Math.max(readersGrew, 0) + 100);
    // the long replies' synthesis takes the CPU whoever listens: the figure without the abuse is the
    // same talk with clients that read
    expect(latency.p99).toBeLessThan(bound(Math.max(readersLatency.p99, baseline.p99)));
    expect(await outputMatching(/"outcome":"client_not_reading"/)).toContain(
      '"outcome":"client_not_reading"',
    );
  }, 120_000);

  it('closes a stream that floods frames after a few notices, and no other client slows down', async () => {
    const { open, session, dev } = await tenant('flooder');
    const startedBefore = await session(); // started before the drop, opened after it
    const [binary, text] = await Promise.all([open(), open()]);
    const before = api.rssMb();
    const during = healthzLatency(api.baseUrl, 150);
    const [sentBinary, sentText] = await Promise.all([
      floodFrames(binary, Buffer.alloc(2), 10_000),
      floodFrames(text, '{"type":"nonsense"', 10_000),
    ]);
    await allClosed([binary, text], 10_000);
    const latency = await during;
    const grown = api.rssMb() - before;
    console.log(
      `flood: ${sentBinary} binary and ${sentText} text frames sent; closed ${JSON.stringify([binary.closed, text.closed])}; errors ${binary.errors()} and ${text.errors()}; RSS +${grown.toFixed(0)} MB; /healthz p99 ${latency.p99.toFixed(1)} ms`,
    );
    expect(binary.closed?.code).toBe(1008);
    expect(text.closed?.code).toBe(1008);
    expect(binary.errors('RATE_LIMITED')).toBe(1);
    expect(text.errors()).toBeLessThanOrEqual(20);
    expect(grown).toBeLessThan(100);
    expect(latency.p99).toBeLessThan(bound(baseline.p99));
    // operators see it: a log line with the outcome and counts, and the stream metrics
    const dropped = /"outcome":"flooding".*"a voice stream was dropped"/;
    expect(await outputMatching(dropped)).toMatch(dropped);
    const metrics = await call(api.baseUrl, 'GET', '/metrics', { token: TEST_ADMIN_TOKEN });
    expect(metrics.body).toMatch(/voice_stream_closes_total\{reason="flooding"\} [1-9]/);
    expect(metrics.body).toMatch(
      /voice_stream_frames_total\{direction="in",kind="any",outcome="dropped"\} [1-9]/,
    );
    expect(metrics.body).toMatch(/voice_stream_upgrades_total\{outcome="opened"\} [1-9]/);
    // the account cools down: its next stream is refused for a while, with when to come back
    const again = await refusedUpgrade(streamUrl(api.baseUrl, startedBefore), {
      authorization: `Bearer ${dev.testKey}`,
    });
    expect(again.status).toBe(429);
    expect(again.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(again.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(again.retryAfter)).toBeLessThanOrEqual(30);
    // and so is a new session, before anything is written or started
    const sessionsBefore = await call(api.baseUrl, 'GET', '/api/v2/developers/sessions', {
      token: dev.testKey,
    });
    const refusedStart = await fetch(`${api.baseUrl}/api/v2/developers/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ personaId: sessionsBefore.body.data[0].personaId, userId: 'again' }),
    });
    expect(refusedStart.status).toBe(429);
    expect(((await refusedStart.json()) as { code: string }).code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refusedStart.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const sessionsAfter = await call(api.baseUrl, 'GET', '/api/v2/developers/sessions', {
      token: dev.testKey,
    });
    expect(sessionsAfter.body.pagination.total).toBe(sessionsBefore.body.pagination.total);
    // another account is not cooled down
    const other = await tenant('flooder-neighbour');
    const stream = await other.open();
    expect(stream.closed).toBeUndefined();
    stream.ws.close();
  }, 60_000);

  it('holds an account to its plan’s live streams, and an idle stream holds little memory', async () => {
    const free = await tenant('five');
    const five = await Promise.all(Array.from({ length: 5 }, () => free.open()));
    const sixth = await refusedUpgrade(streamUrl(api.baseUrl, await free.session()), {
      authorization: `Bearer ${free.dev.testKey}`,
    });
    expect(sixth.status).toBe(403);
    expect(sixth.body.code).toBe('PLAN_LIMIT_REACHED');
    five[0].ws.close();
    await five[0].untilClosed(5000);
    // the slot is given back as the call ends
    let reopened: AbusiveStream | undefined;
    for (let i = 0; i < 20 && !reopened; i++) {
      reopened = await free.open().catch(() => undefined);
      if (!reopened) await new Promise((r) => setTimeout(r, 250));
    }
    expect(reopened).toBeDefined();
    for (const s of [...five, reopened!]) s.ws.close();

    const pro = await tenant('idle', 'pro');
    const sessions = await Promise.all(Array.from({ length: 30 }, () => pro.session()));
    const before = api.rssMb();
    const idle: AbusiveStream[] = [];
    for (const id of sessions) idle.push(await openAbusiveStream(api.baseUrl, id, pro.dev.testKey));
    await new Promise((r) => setTimeout(r, 1000));
    const perStream = (api.rssMb() - before) / idle.length;
    console.log(`idle streams with speech-to-text on: ${perStream.toFixed(2)} MB each`);
    for (const s of idle) s.ws.close();
    expect(perStream).toBeLessThan(1.5);
  }, 120_000);

  it('drops caller audio sent faster than real time, with one notice', async () => {
    const { open } = await tenant('fast-audio');
    const stream = await open();
    // 100 ms frames at four times real time for three seconds
    const frame = Buffer.alloc(3200);
    for (let i = 0; i < 120; i++) {
      stream.ws.send(frame, { binary: true });
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 300));
    const limited = stream.errors('RATE_LIMITED');
    console.log(`audio at 4x real time: ${limited} RATE_LIMITED notices`);
    expect(limited).toBe(1);
    stream.ws.close();
  }, 60_000);

  it('spends the account’s turn budget on each streamed turn', async () => {
    const { dev, open } = await tenant('turns');
    const stream = await open();
    let refused = false;
    for (let turn = 0; turn < 70 && !refused; turn++) {
      const from = stream.messages.length;
      stream.ws.send(JSON.stringify({ type: 'input.text', text: `question ${turn}` }));
      const deadline = Date.now() + 10_000;
      for (;;) {
        const got = stream.messages.slice(from);
        if (got.some((m) => m.type === 'error' && m.code === 'RATE_LIMITED')) refused = true;
        if (refused || got.some((m) => m.type === 'turn.recorded' || m.type === 'error')) break;
        if (Date.now() > deadline) throw new Error(`turn ${turn} got no answer: ${JSON.stringify(got)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    const recorded = stream.messages.filter((m) => m.type === 'turn.recorded').length;
    console.log(`streamed turns before RATE_LIMITED: ${recorded}`);
    expect(refused).toBe(true);
    expect(recorded).toBeLessThanOrEqual(60);
    // the REST API sees the same budget spent
    const rest = await call(api.baseUrl, 'GET', '/api/v2/developers/sessions', { token: dev.testKey });
    expect(rest.status).toBe(429);
    stream.ws.close();
  }, 120_000);
});
