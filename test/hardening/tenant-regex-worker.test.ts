import { startWorker } from '../../src/app/runtime';
import { TEST_ENV } from '../support/env';
import { createIsolatedDatabase } from '../support/isolated-db';
import { type LlmRequest, startLlmDouble } from '../support/llm-double';
import { completeManifest } from '../support/personas';
import { eventually } from '../support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from '../support/test-app';

/**
 * Tenant regular expressions could stall the shared worker: `a*a*c`, `(a|aa)*c` and `a*a*a*c`
 * passed the write-time check, and three of them over a reply of 3 000 `a`s held the worker for
 * 40 s while another account's REST turn waited. Through the real worker now: a scenario's
 * replyMatches and an analysis data schema's patterns over 5 000 `a`s are checked (on the
 * linear-time engine) and answered, and another account's turns go on meanwhile.
 */
const AAA = 'a'.repeat(5000);
const PATTERNS = ['a*a*c', '(a|aa)*c', 'a*a*a*c'];

/** The model: the agent says 5 000 `a`s; an analysis answers 5 000 `a`s in each field. */
function model(req: LlmRequest) {
  const system = String(req.messages[0]?.content ?? '');
  if (system.startsWith('You analyse'))
    return { content: JSON.stringify({ data: { x: AAA, y: AAA, z: AAA } }) };
  return { content: AAA };
}

describe('tenant regular expressions do not stall the shared worker', () => {
  let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let dev: Developer;
  let other: Developer;
  const api = (method: string, path: string, body?: unknown, token = dev.token) =>
    call(app.baseUrl, method, `/api/v1/developers${path}`, { token, body });
  const platform = (method: string, path: string, key: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });
  /** Another account's REST turns, one after another, `count` of them: answers their statuses. */
  const othersTurns = async (personaId: string, count: number) => {
    const started = await platform('POST', '/sessions', other.testKey, { personaId, userId: 'bystander' });
    expect(started.status).toBe(201);
    const statuses: number[] = [];
    for (let i = 0; i < count; i++)
      statuses.push(
        (await platform('POST', `/sessions/${started.body.data.id}/turns`, other.testKey, { text: 'hi' }))
          .status,
      );
    return statuses;
  };

  beforeAll(async () => {
    // its own database: the suite's own worker would otherwise dispatch the analysis to its queue
    db = await createIsolatedDatabase('tenant-regex');
    llm = await startLlmDouble();
    llm.script(model);
    app = await startTestApp({
      DATABASE_URL: db.url,
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-tenant-regex-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress());
    dev = await newDeveloper(app, 'regex');
    other = await newDeveloper(app, 'regex-other');
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await llm?.close();
    await db?.drop();
  });

  it("an analysis data schema's polynomial patterns over 5 000 `a`s are checked, and the analysis settles", async () => {
    const properties = {
      x: { pattern: PATTERNS[0] },
      y: { pattern: PATTERNS[1] },
      z: { pattern: PATTERNS[2] },
    };
    const analysis = {
      dataSchema: {
        type: 'object',
        properties: Object.fromEntries(
          Object.entries(properties).map(([k, v]) => [k, { type: 'string', ...v }]),
        ),
      },
    };
    const created = await api('POST', '/personas', {
      manifest: { ...completeManifest('regex-analysed'), analysis },
    });
    expect(created.status).toBe(201);
    const personaId = created.body.persona.id;
    const started = await platform('POST', '/sessions', dev.testKey, { personaId, userId: 'caller' });
    const id = started.body.data.id as string;
    expect(
      (await platform('POST', `/sessions/${id}/turns`, dev.testKey, { text: 'a'.repeat(2000) })).status,
    ).toBe(200);
    expect((await platform('POST', `/sessions/${id}/end`, dev.testKey)).status).toBe(200);
    const settled = await eventually(async () => {
      const res = await platform('GET', `/sessions/${id}/analysis`, dev.testKey);
      return res.status === 200 && res.body.data.status !== 'pending' && res.body.data;
    }, 60_000);
    expect(settled).toMatchObject({ status: 'failed', attempts: 2 });
    for (const pattern of PATTERNS) expect(settled.error).toContain(`must match pattern "${pattern}"`);
  }, 120_000);

  it("a scenario's polynomial replyMatches over 5 000 `a`s are answered, and another account's turns go on", async () => {
    const personaId = (await api('POST', '/personas', { manifest: completeManifest('regex-ava') })).body
      .persona.id;
    const expect3 = PATTERNS.map((pattern) => ({ type: 'replyMatches', pattern }));
    const created = await api('POST', `/personas/${personaId}/tests`, {
      name: 'a flood of a',
      turns: [{ text: 'a'.repeat(2000), expect: expect3 }],
      expectations: expect3,
    });
    expect(created.status).toBe(201);
    const theirs = (
      await api('POST', '/personas', { manifest: completeManifest('regex-bystander') }, other.token)
    ).body.persona.id;
    const [run, statuses] = await Promise.all([
      api('POST', `/personas/${personaId}/test-runs?wait=true`, { scenarios: [created.body.scenario.id] }),
      othersTurns(theirs, 5),
    ]);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(run.status).toBe(200);
    const [result] = run.body.run.scenarios;
    expect(result.transcript[0].reply).toBe(AAA);
    expect(result.verdicts).toHaveLength(6);
    for (const verdict of result.verdicts) {
      expect(verdict.passed).toBe(false);
      expect(verdict.reason).toContain('does not match');
    }
  }, 120_000);
});
