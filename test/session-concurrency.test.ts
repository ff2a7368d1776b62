import type { ChildProcess } from 'node:child_process';
import { startWorker } from '../src/app/runtime';
import { REST_TURN_CLAIM_MS } from '../src/sessions/turn/rest-turn';
import { claimTurn, releaseTurn } from '../src/sessions/turn-claims';
import { turnUpdate } from '../workflows/messages';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { spawnWorker, stopProcess, workerProcessEnv } from './support/resilience';
import { call, newDeveloper, startTestApp, type TestApp } from './support/test-app';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

/**
 * Concurrent turns on one session (docs/sessions.md "Concurrent turns"): every turn the API
 * acknowledges is the caller's own and is in the transcript exactly once. The LLM double echoes what
 * the caller said, so a reply names the request it answers.
 */
async function floodOneSession(app: TestApp, llm: LlmDouble, n: number): Promise<void> {
  const dev = await newDeveloper(app, `flood${n}`);
  const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: dev.token,
    body: { manifest: completeManifest(`flood-agent-${n}`) },
  });
  const api = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
  const started = await api('POST', '/sessions', { personaId: persona.body.persona.id, userId: 'flood' });
  expect(started.status).toBe(201);
  const id = started.body.data.id as string;
  // a model that takes a little while, so turns pile up behind each other
  llm.script((req) => ({ content: `echo: ${req.messages.at(-1)?.content ?? ''}`, delayMs: 5 }));

  const texts = Array.from({ length: n }, (_, i) => `caller line ${i + 1} of ${n}`);
  const answers = await Promise.all(texts.map((text) => api('POST', `/sessions/${id}/turns`, { text })));

  const acknowledged: { text: string; index: number }[] = [];
  let refused = 0;
  answers.forEach((answer, i) => {
    // a turn sent while another is answered is refused with the error body, and changes nothing
    if (answer.status === 409) {
      expect(answer.body).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('another turn') });
      refused++;
      return;
    }
    expect(answer.status).toBe(200);
    expect(answer.body.data.text).toBe(texts[i]);
    expect(answer.body.data.reply.text).toBe(`echo: ${texts[i]}`);
    acknowledged.push({ text: texts[i], index: answer.body.data.index });
  });
  expect(acknowledged.length).toBeGreaterThan(0);
  expect(acknowledged.length + refused).toBe(n);

  const detail = await api('GET', `/sessions/${id}`);
  const transcript = detail.body.data.transcript as {
    index: number;
    text: string;
    reply: { text: string };
  }[];
  // every acknowledged turn exactly once, at the index its caller was told
  for (const turn of acknowledged) {
    const found = transcript.filter((t) => t.text === turn.text);
    expect(found).toHaveLength(1);
    expect(found[0].index).toBe(turn.index);
  }
  // nothing recorded that was not acknowledged, no index twice, and each reply answers its own line
  expect(transcript).toHaveLength(acknowledged.length);
  expect(new Set(transcript.map((t) => t.index)).size).toBe(transcript.length);
  for (const t of transcript) expect(t.reply.text).toBe(`echo: ${t.text}`);
  expect(detail.body.data.turnCount).toBe(transcript.length);
  // the turns' records let the session's next turn in: no claim is left
  const claims = await app.ctx.orm.em
    .fork()
    .getConnection()
    .execute('select claim_id from session_turn_claims where session_id = ?', [id]);
  expect(claims).toEqual([]);
  await api('POST', `/sessions/${id}/end`);
}

/**
 * Past the API's claim (as a second client of the workflow would be): `n` turns sent to the session's
 * workflow to record at once. Temporal may discard a workflow task and run it again, with the turns in
 * another order; each turn is identified by its update, so each update still answers its own turn,
 * recorded once.
 */
async function updatesStraightToTheWorkflow(app: TestApp, llm: LlmDouble, n: number): Promise<void> {
  const dev = await newDeveloper(app, `direct${n}`);
  const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: dev.token,
    body: { manifest: completeManifest(`direct-agent-${n}`) },
  });
  const started = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
    token: dev.testKey,
    body: { personaId: persona.body.persona.id, userId: 'direct' },
  });
  const id = started.body.data.id as string;
  llm.script((req) => ({ content: `echo: ${req.messages.at(-1)?.content ?? ''}`, delayMs: 5 }));
  const handle = app.ctx.temporal.workflow.getHandle(id);
  const texts = Array.from({ length: n }, (_, i) => `direct line ${i + 1} of ${n}`);
  const results = await Promise.allSettled(
    texts.map((text) =>
      handle.executeUpdate(turnUpdate, {
        args: [
          {
            text,
            reply: { text: `echo: ${text}` },
            route: 'llm',
            actions: [],
            error: null,
            latencyMs: 1,
            interrupted: false,
            spokenText: `echo: ${text}`,
          },
        ],
      }),
    ),
  );
  const answered = results.flatMap((r, i) =>
    r.status === 'fulfilled' ? [{ turn: r.value, text: texts[i] }] : [],
  );
  expect(answered.length).toBeGreaterThan(0);
  for (const { turn, text } of answered) {
    expect(turn.text).toBe(text);
    expect(turn.reply.text).toBe(`echo: ${text}`);
  }
  const rows: { index: number; text: string; reply: string }[] = await app.ctx.orm.em
    .fork()
    .getConnection()
    .execute('select index, text, reply from session_turns where session_id = ? order by index', [id]);
  // each turn once, each at its own index, each reply its own line's
  expect(new Set(rows.map((r) => r.text)).size).toBe(rows.length);
  expect(new Set(rows.map((r) => r.index)).size).toBe(rows.length);
  for (const r of rows) expect(r.reply).toBe(`echo: ${r.text}`);
  for (const { turn } of answered) {
    expect(rows.find((r) => r.index === turn.index)?.text).toBe(turn.text);
  }
}

describe('concurrent turns on one session, API and worker in one process', () => {
  let app: TestApp;
  let llm: LlmDouble;
  let stopWorker: () => Promise<void>;
  beforeAll(async () => {
    llm = await startLlmDouble();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-flood-one-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    stopWorker = () => worker.stop();
  });
  afterAll(async () => {
    await stopWorker?.();
    await app?.close();
    await llm?.close();
  });

  it('20 concurrent turns: each caller gets its own turn, each is in the transcript once', async () => {
    await floodOneSession(app, llm, 20);
  });

  it('50 concurrent turns: each caller gets its own turn, each is in the transcript once', async () => {
    await floodOneSession(app, llm, 50);
  });

  it('the workflow keeps turns apart by their update, even when 20 reach it at once', async () => {
    await updatesStraightToTheWorkflow(app, llm, 20);
  });

  it("a turn's claim is held by one turn at a time, released by its holder only, and lapses", async () => {
    const dev = await newDeveloper(app, 'claims');
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('claims-agent') },
    });
    const started = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: dev.testKey,
      body: { personaId: persona.body.persona.id, userId: 'claims' },
    });
    const sessionId = started.body.data.id as string;
    const first = { sessionId, claimId: 'first', ttlMs: 300 };
    const second = { sessionId, claimId: 'second', ttlMs: 60_000 };
    expect(await claimTurn(app.ctx, first)).toBe(true);
    expect(await claimTurn(app.ctx, second)).toBe(false);
    await releaseTurn(app.ctx, { sessionId, claimId: 'second' }); // not its claim: nothing happens
    expect(await claimTurn(app.ctx, second)).toBe(false);
    await new Promise((r) => setTimeout(r, 400)); // the first claim's holder died: it lapses
    expect(await claimTurn(app.ctx, second)).toBe(true);
    await releaseTurn(app.ctx, second);
    expect(await claimTurn(app.ctx, first)).toBe(true);
    await releaseTurn(app.ctx, first);
  });
  it('a REST turn holds its session for 15 s at a time, renewed while it runs (a dead API process frees it within 15 s)', async () => {
    const dev = await newDeveloper(app, 'renewed');
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('renewed-agent') },
    });
    const started = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: dev.testKey,
      body: { personaId: persona.body.persona.id, userId: 'renewed' },
    });
    const sessionId = started.body.data.id as string;
    llm.script(() => ({ content: 'A slow answer.', delayMs: REST_TURN_CLAIM_MS / 3 + 1_500 }));
    const turn = call(app.baseUrl, 'POST', `/api/v2/developers/sessions/${sessionId}/turns`, {
      token: dev.testKey,
      body: { text: 'Take your time' },
    });
    const knex = app.ctx.orm.em.fork().getConnection();
    const reach = async () => {
      const [row] = await knex.execute(
        'select (extract(epoch from expires_at - now()) * 1000)::float8 as ms, expires_at from session_turn_claims where session_id = ?',
        [sessionId],
      );
      return row as { ms: number; expires_at: Date };
    };
    await new Promise((r) => setTimeout(r, 500));
    const early = await reach();
    expect(early.ms).toBeLessThanOrEqual(REST_TURN_CLAIM_MS);
    await new Promise((r) => setTimeout(r, REST_TURN_CLAIM_MS / 3 + 500));
    const later = await reach();
    expect(later.ms).toBeLessThanOrEqual(REST_TURN_CLAIM_MS);
    expect(new Date(later.expires_at).getTime()).toBeGreaterThan(new Date(early.expires_at).getTime());
    expect((await turn).status).toBe(200);
    llm.script(undefined);
  }, 30_000);
});

describe('concurrent turns on one session, API and worker in two processes', () => {
  let app: TestApp;
  let llm: LlmDouble;
  let worker: ChildProcess | undefined;
  let dropDb: () => Promise<void>;
  beforeAll(async () => {
    const db = await createIsolatedDatabase('flood');
    dropDb = () => db.drop();
    llm = await startLlmDouble();
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
      TEMPORAL_TASK_QUEUE: `vp-flood-two-${process.pid}`,
      LLM_BASE_URL: llm.baseUrl,
    };
    app = await startTestApp({ ...env, RATE_LIMITS: 'off' });
    worker = spawnWorker(workerProcessEnv(env, 'flood'));
  });
  afterAll(async () => {
    await stopProcess(worker, 'SIGTERM');
    await app?.close();
    await llm?.close();
    await dropDb?.();
  });

  it('20 concurrent turns: each caller gets its own turn, each is in the transcript once', async () => {
    await floodOneSession(app, llm, 20);
  });

  it('50 concurrent turns: each caller gets its own turn, each is in the transcript once', async () => {
    await floodOneSession(app, llm, 50);
  });

  it('the workflow keeps turns apart by their update, even when 20 reach it at once', async () => {
    await updatesStraightToTheWorkflow(app, llm, 20);
  });
});
