import { startWorker } from '../src/app/runtime';
import { reviewStateQuery } from '../workflows/messages';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

const CONSOLE = '/api/v1/developers';
/** The agent answers every turn with this (the scenarios below expect it, or something it lacks). */
const REPLY = 'Happy to help.';

const passing = {
  name: 'greets',
  turns: [{ text: 'Hello', expect: [{ type: 'replyContains', text: 'happy to help' }] }],
};
const failing = {
  name: 'offers a refund',
  turns: [{ text: 'I want my money back', expect: [{ type: 'replyContains', text: 'refund' }] }],
};

/**
 * Issue 27 item 3, the gate: submitting a persona runs its test suite inside the review workflow;
 * the results are part of the review, and with `requirePassingTests` a suite that does not pass
 * rejects the submission at once.
 */
describe('the review gated on agent tests', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: LlmDouble;
  let dev: Developer;
  let other: Developer;
  const api = (method: string, path: string, body?: unknown, token = dev.token) =>
    call(app.baseUrl, method, CONSOLE + path, { token, body });
  const admin = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/admin${path}`, { token: TEST_ADMIN_TOKEN, body });
  const adminReview = async (personaId: string) =>
    (await admin('GET', '/reviews')).body.reviews.find((r: { id: string }) => r.id === personaId);
  /** A complete persona with these scenarios, submitted. */
  const submitted = async (slug: string, scenarios: unknown[], token = dev.token) => {
    const { persona } = (await api('POST', '/personas', { manifest: completeManifest(slug) }, token)).body;
    for (const s of scenarios)
      expect((await api('POST', `/personas/${persona.id}/tests`, s, token)).status).toBe(201);
    expect((await api('POST', `/personas/${persona.id}/submit`, undefined, token)).status).toBe(200);
    return persona.id as string;
  };
  /** The persona's review tests once its run has ended (as the persona's view shows them while pending). */
  const endedTests = (id: string) =>
    eventually(async () => {
      const tests = (await adminReview(id))?.tests;
      return tests && tests.status !== 'running' ? tests : undefined;
    }, 60_000);
  const setGate = async (on: boolean, token = dev.token) => {
    const res = await api('PATCH', '/settings', { requirePassingTests: on }, token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ requirePassingTests: on });
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-review-gate-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'gate');
    other = await newDeveloper(app, 'gate-other');
  }, 120_000);
  afterAll(async () => {
    await worker.stop();
    await app.close();
    await llm.close();
  });
  beforeEach(() => llm.script(() => ({ content: REPLY })));

  it('reads and changes requirePassingTests; bad input is a 400 naming the field and changes nothing', async () => {
    expect((await api('GET', '/settings')).body).toEqual({ requirePassingTests: false });
    for (const [body, field] of [
      [{ requirePassingTests: 'yes' }, /^requirePassingTests: /],
      [{ requirePassingTests: true, colour: 'blue' }, /^colour: /],
      [{}, /^body: at least one setting/],
      [undefined, /^body: /],
    ] as const) {
      const res = await api('PATCH', '/settings', body);
      expect(res.status).toBe(400);
      expect(res.body.validationErrors).toEqual([expect.stringMatching(field)]);
    }
    expect((await api('GET', '/settings')).body).toEqual({ requirePassingTests: false });
    await setGate(true);
    expect((await api('GET', '/settings')).body).toEqual({ requirePassingTests: true });
    // another account's setting is its own
    expect((await api('GET', '/settings', undefined, other.token)).body).toEqual({
      requirePassingTests: false,
    });
    expect((await call(app.baseUrl, 'GET', `${CONSOLE}/settings`)).status).toBe(401);
    await setGate(false);
  });

  it('gate off: the suite runs first (a decision waits for it), then the operator sees the results and decides', async () => {
    llm.script(() => ({ content: REPLY, delayMs: 1_500 }));
    const id = await submitted('gate-off', [passing, failing]);
    const during = await eventually(async () => (await adminReview(id))?.tests ?? undefined);
    expect(during).toMatchObject({ runId: expect.stringMatching(/^testrun_/), status: 'running', total: 2 });
    const early = await admin('POST', `/personas/${id}/review`, { decision: 'approve' });
    expect(early.status).toBe(409);
    expect(early.body.error).toContain('tests are still running');

    const tests = await endedTests(id);
    expect(tests).toEqual({
      runId: during.runId,
      status: 'failed',
      passed: 1,
      failed: 1,
      total: 2,
      failures: [
        {
          scenarioId: expect.stringMatching(/^tsc_/),
          name: 'offers a refund',
          status: 'failed',
          reasons: [`turn 1, replyContains: the reply "${REPLY}" does not contain "refund"`],
        },
      ],
      completedAt: expect.any(String),
    });
    // the run is one like any other, and the persona's own view shows the results
    const run = (await api('GET', `/test-runs/${tests.runId}`)).body.run;
    expect(run).toMatchObject({
      personaId: id,
      personaVersion: null,
      status: 'failed',
      passed: 1,
      failed: 1,
    });
    const listed = (await api('GET', `/personas/${id}/test-runs`)).body.runs;
    expect(listed.map((r: { id: string }) => r.id)).toEqual([tests.runId]);
    const persona = (await api('GET', `/personas/${id}`)).body.persona;
    expect(persona).toMatchObject({ status: 'submitted', review: null, pendingReview: { tests } });
    const handle = app.ctx.temporal.workflow.getHandle(`review-${id}-1`);
    // the workflow takes decisions again a moment after it stored the summary (the API bridges that)
    await eventually(async () => (await handle.query(reviewStateQuery)).status === 'waiting');

    const approved = await admin('POST', `/personas/${id}/review`, {
      decision: 'approve',
      notes: 'Close enough',
    });
    expect(approved.status).toBe(200);
    expect(approved.body.persona).toMatchObject({
      status: 'published',
      pendingReview: null,
      review: { decision: 'approved', notes: 'Close enough', tests },
    });
  }, 120_000);

  it('gate on: a failing suite rejects the submission at once, the failures as its notes', async () => {
    await setGate(true);
    try {
      const id = await submitted('gate-on-failing', [failing, passing]);
      const handle = app.ctx.temporal.workflow.getHandle(`review-${id}-1`);
      const outcome = await handle.result();
      expect(outcome).toMatchObject({ status: 'rejected', decidedAt: expect.any(String) });
      expect(outcome.notes).toContain('1 of 2 scenarios did not pass');
      expect(outcome.notes).toContain('requirePassingTests');
      expect(outcome.notes).toContain(`- offers a refund: turn 1, replyContains: the reply "${REPLY}"`);
      // the same state as an operator's rejection: the persona is rejected, editable and resubmittable
      const persona = (await api('GET', `/personas/${id}`)).body.persona;
      expect(persona).toMatchObject({
        status: 'rejected',
        pendingReview: null,
        review: {
          decision: 'rejected',
          notes: outcome.notes,
          tests: { status: 'failed', passed: 1, failed: 1 },
        },
      });
      expect(await adminReview(id)).toBeUndefined();
      expect((await admin('POST', `/personas/${id}/review`, { decision: 'approve' })).status).toBe(409);
      expect(
        (await api('PUT', `/personas/${id}`, { manifest: completeManifest('gate-on-failing') })).status,
      ).toBe(200);
    } finally {
      await setGate(false);
    }
  }, 120_000);

  it('gate on: a passing suite waits for the operator; a cancelled suite counts as failing', async () => {
    await setGate(true);
    try {
      const id = await submitted('gate-on-passing', [passing]);
      expect(await endedTests(id)).toMatchObject({ status: 'passed', passed: 1, failed: 0, failures: [] });
      expect((await api('GET', `/personas/${id}`)).body.persona.status).toBe('submitted');
      const decided = await admin('POST', `/personas/${id}/review`, { decision: 'reject', notes: 'Not yet' });
      expect(decided.body.persona).toMatchObject({ status: 'rejected', review: { notes: 'Not yet' } });

      // slow enough that the cancel below lands while the scenario's turn waits for the model, even on a busy machine
      llm.script(() => ({ content: REPLY, delayMs: 10_000 }));
      const slow = await submitted('gate-on-cancelled', [passing]);
      const running = await eventually(async () => (await adminReview(slow))?.tests ?? undefined);
      // cancelled once the review has started it as its child
      await eventually(() => app.ctx.temporal.workflow.getHandle(running.runId).describe());
      expect((await api('POST', `/test-runs/${running.runId}/cancel`)).body.run.status).toBe('cancelled');
      const outcome = await app.ctx.temporal.workflow.getHandle(`review-${slow}-1`).result();
      expect(outcome.status).toBe('rejected');
      expect(outcome.notes).toContain('The test suite was cancelled');
      expect((await api('GET', `/personas/${slow}`)).body.persona.review.tests).toMatchObject({
        status: 'cancelled',
        failures: [
          { name: 'greets', status: 'error', reasons: ['not run to its end: the run was cancelled'] },
        ],
      });
    } finally {
      await setGate(false);
    }
  }, 120_000);

  it('a persona without scenarios records "no tests" and waits for the operator, gate on or off', async () => {
    await setGate(true);
    try {
      const id = await submitted('gate-none', []);
      // decisions sent at once wait for the review to look for scenarios: one is taken, the others refused
      const answers = await Promise.all(
        [1, 2, 3].map(() => admin('POST', `/personas/${id}/review`, { decision: 'approve' })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
      const approved = answers.find((a) => a.status === 200)!;
      const none = {
        runId: null,
        status: 'none',
        passed: 0,
        failed: 0,
        total: 0,
        failures: [],
        completedAt: null,
      };
      expect(approved.body.persona).toMatchObject({ status: 'published', review: { tests: none } });
      expect((await api('GET', `/personas/${id}/test-runs`)).body.runs).toEqual([]);
    } finally {
      await setGate(false);
    }
  }, 60_000);

  it("keeps accounts apart: another account's gate, runs and settings", async () => {
    await setGate(true);
    try {
      // the other account's gate is off: its failing suite waits for the operator
      const theirs = await submitted('gate-theirs', [failing], other.token);
      const tests = await endedTests(theirs);
      expect(tests.status).toBe('failed');
      expect((await api('GET', `/personas/${theirs}`, undefined, other.token)).body.persona.status).toBe(
        'submitted',
      );
      // its review's run and persona are not found from this account
      expect((await api('GET', `/test-runs/${tests.runId}`)).status).toBe(404);
      expect((await api('GET', `/personas/${theirs}`)).status).toBe(404);
      expect((await api('GET', `/test-runs/${tests.runId}`, undefined, other.token)).status).toBe(200);
      expect((await api('GET', '/settings', undefined, other.token)).body.requirePassingTests).toBe(false);
    } finally {
      await setGate(false);
    }
  }, 120_000);
});
