import { startWorker } from '../src/app/runtime';
import { createAnalysisOutboxHandler } from '../src/call-analysis';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { type LlmReply, type LlmRequest, startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

const ANALYSIS = {
  summary: true,
  successCriteria: 'The caller learns where their order is.',
  dataSchema: {
    type: 'object',
    properties: {
      orderId: { type: 'string', pattern: '^A-[0-9]+$' },
      sentiment: { enum: ['positive', 'negative'] },
    },
    required: ['orderId'],
    additionalProperties: false,
  },
};
const VALID = {
  summary: 'The caller asked about order A-1.',
  success: { passed: true, reason: 'The status was given.' },
  data: { orderId: 'A-1', sentiment: 'positive' },
};
/** `data.orderId` is missing: ajv refuses it. */
const INVALID = { ...VALID, data: { sentiment: 'positive' } };

/**
 * The model double: an analysis request (its system prompt) is answered by the mode the caller said
 * in the transcript; a turn gets a plain reply.
 */
function analysisModel(req: LlmRequest): LlmReply {
  const system = req.messages[0]?.content ?? '';
  if (!system.startsWith('You analyse')) return { content: 'Your order A-1 ships today.' };
  const transcript = req.messages[1]?.content ?? '';
  const second = req.messages.length > 2;
  if (transcript.includes('mode valid')) return { content: JSON.stringify(VALID) };
  if (transcript.includes('mode unmet'))
    return { content: JSON.stringify({ ...VALID, success: { passed: false, reason: 'No status given.' } }) };
  if (transcript.includes('mode fenced')) return { content: `\`\`\`json\n${JSON.stringify(VALID)}\n\`\`\`` };
  if (transcript.includes('mode retry')) return { content: JSON.stringify(second ? VALID : INVALID) };
  if (transcript.includes('mode invalid'))
    return { content: second ? 'not json at all' : JSON.stringify(INVALID) };
  return { status: 400, raw: '{"error":"model refuses"}' };
}

describe('post-call analysis', () => {
  let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let app: TestApp;
  let stopWorker: () => Promise<void>;
  let llm: LlmDouble;
  let dev: Developer;
  let other: Developer;
  let analysed: string;
  let plain: string;
  const platform = (key: string, method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });
  const createPersona = (slug: string, extra: Record<string, unknown> = {}) =>
    call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: { ...completeManifest(slug), ...extra } },
    });
  /** A session with one turn saying `text`, ended: answers its id. */
  const endedSession = async (text: string, personaId = analysed) => {
    const started = await platform(dev.testKey, 'POST', '/sessions', { personaId, userId: 'caller-1' });
    expect(started.status).toBe(201);
    const id = started.body.data.id as string;
    expect((await platform(dev.testKey, 'POST', `/sessions/${id}/turns`, { text })).status).toBe(200);
    expect((await platform(dev.testKey, 'POST', `/sessions/${id}/end`)).status).toBe(200);
    return id;
  };
  const settled = (id: string) =>
    eventually(async () => {
      const res = await platform(dev.testKey, 'GET', `/sessions/${id}/analysis`);
      return res.status === 200 && res.body.data.status !== 'pending' && res.body.data;
    }, 30_000);
  const analyzedEvents = async (sessionId: string) => {
    const rows = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select payload from events where type = 'session.analyzed' and payload like ?`, [
        `%${sessionId}%`,
      ]);
    return rows.map((r) => JSON.parse(r.payload as string));
  };
  const analysisRequests = () =>
    llm.requests.filter((r) => String(r.messages[0]?.content ?? '').startsWith('You analyse'));

  beforeAll(async () => {
    db = await createIsolatedDatabase('analysis');
    llm = await startLlmDouble();
    llm.script(analysisModel);
    app = await startTestApp({
      DATABASE_URL: db.url,
      TEMPORAL_TASK_QUEUE: `vp-analysis-${process.pid}`,
      LLM_BASE_URL: llm.baseUrl,
      RATE_LIMITS: 'off',
    });
    const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress());
    stopWorker = worker.stop;
    dev = await newDeveloper(app, 'analysis');
    other = await newDeveloper(app, 'analysis-other');
    const created = await createPersona('analysis-agent', { analysis: ANALYSIS });
    expect(created.status).toBe(201);
    analysed = created.body.persona.id;
    plain = (await createPersona('plain-agent')).body.persona.id;
  });
  afterAll(async () => {
    await stopWorker?.();
    await app?.close();
    await llm?.close();
    await db?.drop();
  });

  it('refuses a bad analysis setting with 400 naming the field', async () => {
    const bad: [string, unknown][] = [
      ['not a schema', { dataSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } }],
      ['not an object', { dataSchema: { type: 'string' } }],
      ['too large', { dataSchema: { type: 'object', description: 'x'.repeat(9000) } }],
      [
        'remote ref',
        { dataSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } } },
      ],
      ['long rubric', { successCriteria: 'y'.repeat(4001) }],
      ['unknown field', { summary: true, extract: {} }],
      ['summary not boolean', { summary: 'yes' }],
      ['unknown dialect', { dataSchema: { $schema: 'https://example.com/meta', type: 'object' } }],
      ['bad regex', { dataSchema: { type: 'object', properties: { a: { pattern: '(' } } } }],
      // patterns run on the model's answer on a linear-time engine (RE2): none it cannot run
      ['a lookahead', { dataSchema: { type: 'object', properties: { a: { pattern: '^a(?!b)' } } } }],
      ['a backreference', { dataSchema: { type: 'object', patternProperties: { '(x)\\1': {} } } }],
      [
        'a deep long pattern',
        {
          dataSchema: {
            type: 'object',
            properties: { a: { type: 'array', items: { type: 'string', pattern: 'x'.repeat(201) } } },
          },
        },
      ],
    ];
    for (const [label, analysis] of bad) {
      const res = await createPersona(`bad-${label.replace(/ /g, '-')}`, { analysis });
      expect([label, res.status]).toEqual([label, 400]);
      expect(JSON.stringify(res.body.validationErrors)).toContain('analysis');
    }
  });

  it('stores a valid analysis and emits session.analyzed with its fields', async () => {
    llm.script(analysisModel);
    const id = await endedSession('Where is my order A-1? mode valid');
    const analysis = await settled(id);
    expect(analysis).toMatchObject({
      id: expect.stringMatching(/^ana_/),
      sessionId: id,
      personaId: analysed,
      status: 'completed',
      ...VALID,
      error: null,
      attempts: 1,
      completedAt: expect.any(String),
    });
    const [request] = analysisRequests();
    expect(request).toMatchObject({ temperature: 0, response_format: { type: 'json_object' } });
    expect(request.messages[0].content).toContain(ANALYSIS.successCriteria);
    expect(request.messages[1].content).toContain('Caller: Where is my order A-1? mode valid');
    expect(request.messages[1].content).toContain('Agent: Your order A-1 ships today.');
    const events = await eventually(async () => {
      const found = await analyzedEvents(id);
      return found.length > 0 && found;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'session.analyzed',
      publisherId: dev.publisherId,
      data: {
        analysisId: analysis.id,
        sessionId: id,
        personaId: analysed,
        status: 'completed',
        ...VALID,
        error: null,
      },
    });
  });

  it('accepts an answer in a Markdown fence', async () => {
    llm.script(analysisModel);
    const analysis = await settled(await endedSession('mode fenced'));
    expect(analysis).toMatchObject({ status: 'completed', data: VALID.data, attempts: 1 });
  });

  it('gives an invalid answer back to the model once with its problems, then stores the valid one', async () => {
    llm.script(analysisModel);
    const analysis = await settled(await endedSession('Order A-1 please, mode retry'));
    expect(analysis).toMatchObject({ status: 'completed', ...VALID, attempts: 2 });
    const requests = analysisRequests();
    expect(requests).toHaveLength(2);
    const retry = requests[1].messages;
    expect(retry[2]).toEqual({ role: 'assistant', content: JSON.stringify(INVALID) });
    expect(retry[3].content).toContain("data/: must have required property 'orderId'");
  });

  it('records a failed analysis after a second invalid answer, and emits it', async () => {
    llm.script(analysisModel);
    const id = await endedSession('mode invalid');
    const analysis = await settled(id);
    expect(analysis).toMatchObject({
      status: 'failed',
      summary: null,
      success: null,
      data: null,
      attempts: 2,
    });
    expect(analysis.error).toContain('not valid twice');
    expect(analysis.error).toContain('not a JSON object');
    const [event] = await eventually(async () => {
      const found = await analyzedEvents(id);
      return found.length > 0 && found;
    });
    expect(event.data).toMatchObject({ sessionId: id, status: 'failed', data: null, error: analysis.error });
  });

  it('records a failed analysis when the model refuses the request', async () => {
    llm.script(analysisModel);
    const analysis = await settled(await endedSession('mode refused'));
    expect(analysis.status).toBe('failed');
    expect(analysis.error).toContain('The model could not be asked: LLM provider answered 400');
  });

  it('answers 404 for no analysis, another account, the other environment and an unknown session', async () => {
    const active = await platform(dev.testKey, 'POST', '/sessions', { personaId: analysed, userId: 'u' });
    const activeId = active.body.data.id as string;
    const pending = await platform(dev.testKey, 'GET', `/sessions/${activeId}/analysis`);
    expect(pending.status).toBe(404);
    expect(pending.body.error).toContain('has not ended yet');

    llm.script(analysisModel);
    const id = await endedSession('mode valid');
    await settled(id);
    for (const key of [other.testKey, other.liveKey, dev.liveKey]) {
      const res = await platform(key, 'GET', `/sessions/${id}/analysis`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', error: 'Session not found' });
    }
    expect((await platform(dev.testKey, 'GET', '/sessions/sess_nope/analysis')).status).toBe(404);
    expect((await platform(dev.testKey, 'GET', `/sessions/${'x'.repeat(65)}/analysis`)).status).toBe(400);
  });

  it('writes no analysis for a persona without the setting', async () => {
    const id = await endedSession('mode valid', plain);
    const knex = app.ctx.orm.em.getConnection().getKnex();
    await eventually(async () => {
      const row = await knex('events')
        .where({ type: 'session.ended' })
        .whereLike('payload', `%${id}%`)
        .first();
      return row?.dispatched_at;
    });
    expect(await knex('session_analyses').where({ session_id: id })).toHaveLength(0);
    expect((await platform(dev.testKey, 'GET', `/sessions/${id}/analysis`)).status).toBe(404);
  });

  it('records `skipped` when the dispatcher has no LLM provider, once per session', async () => {
    llm.script(analysisModel);
    const id = await endedSession('mode valid');
    await settled(id);
    const knex = app.ctx.orm.em.getConnection().getKnex();
    await knex('session_analyses').where({ session_id: id }).delete();
    const event = await knex('events')
      .where({ type: 'session.ended' })
      .whereLike('payload', `%${id}%`)
      .first();
    const handler = createAnalysisOutboxHandler({
      temporal: app.ctx.temporal,
      config: { ...app.ctx.config, llm: { model: 'm' } },
    });
    await knex.transaction((trx) => handler.onEvents!(trx, [event.id]));
    await knex.transaction((trx) => handler.onEvents!(trx, [event.id])); // a re-run inserts nothing
    const rows = await knex('session_analyses').where({ session_id: id });
    expect(rows).toHaveLength(1);
    const res = await platform(dev.testKey, 'GET', `/sessions/${id}/analysis`);
    expect(res.body.data).toMatchObject({
      status: 'skipped',
      error: expect.stringContaining('LLM_BASE_URL'),
    });
  });

  it('takes the setting of the persona version the session ran, not the working draft', async () => {
    llm.script(analysisModel);
    const consoleCall = (method: string, path: string, body?: unknown) =>
      call(app.baseUrl, method, `/api/v1/developers${path}`, { token: dev.token, body });
    const created = await createPersona('versioned-agent', { analysis: { summary: true } });
    const id = created.body.persona.id as string;
    expect((await consoleCall('POST', `/personas/${id}/submit`)).status).toBe(200);
    const approved = await call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(approved.body.persona.status).toBe('published');
    // the working copy drops the analysis; version 1, live, keeps it
    expect((await consoleCall('POST', `/personas/${id}/revise`)).status).toBe(200);
    const edited = await consoleCall('PUT', `/personas/${id}`, {
      manifest: completeManifest('versioned-agent'),
    });
    expect(edited.status).toBe(200);
    const started = await platform(dev.liveKey, 'POST', '/sessions', { personaId: id, userId: 'caller-v' });
    expect(started.status).toBe(201);
    const sessionId = started.body.data.id as string;
    expect(
      (await platform(dev.liveKey, 'POST', `/sessions/${sessionId}/turns`, { text: 'mode valid' })).status,
    ).toBe(200);
    expect((await platform(dev.liveKey, 'POST', `/sessions/${sessionId}/end`)).status).toBe(200);
    const analysis = await eventually(async () => {
      const res = await platform(dev.liveKey, 'GET', `/sessions/${sessionId}/analysis`);
      return res.status === 200 && res.body.data.status !== 'pending' && res.body.data;
    }, 30_000);
    expect(analysis).toMatchObject({
      status: 'completed',
      summary: VALID.summary,
      success: null,
      data: null,
    });
  });

  it('gives each persona a success rate in the analytics', async () => {
    llm.script(analysisModel);
    const rated = (await createPersona('rated-agent', { analysis: ANALYSIS })).body.persona.id as string;
    await settled(await endedSession('mode valid', rated));
    await settled(await endedSession('mode unmet', rated));
    await settled(await endedSession('mode invalid', rated)); // failed: no verdict, not counted
    const res = await call(app.baseUrl, 'GET', '/api/v1/developers/analytics/personas?environment=test', {
      token: dev.token,
    });
    expect(res.status).toBe(200);
    const entry = res.body.personas.find((p: { personaId: string }) => p.personaId === rated);
    expect(entry).toMatchObject({ totalCalls: 3, analyzedCalls: 2, successRate: 0.5 });
    const none = res.body.personas.find((p: { personaId: string }) => p.personaId === plain);
    expect(none).toMatchObject({ analyzedCalls: 0, successRate: null });
  });

  it('lets a webhook subscribe to session.analyzed', async () => {
    const res = await platform(dev.testKey, 'POST', '/webhooks', {
      name: 'analyses',
      url: 'https://example.com/hooks',
      events: ['session.analyzed'],
    });
    expect(res.status).toBe(201);
  });
});
