import {
  AccountIdKey,
  PersonaIdKey,
  ReviewKindKey,
  ReviewOverdueKey,
} from '../src/temporal/search-attributes';
import { reviewStateQuery } from '../workflows/messages';
import { TEST_ADMIN_TOKEN } from './support/env';
import { completeManifest } from './support/personas';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const CONSOLE = '/api/v1/developers';

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('personas and their operator review', () => {
  let app: TestApp;
  let dev: Developer;
  let other: Developer;
  const api = (method: string, path: string, body?: unknown, token = dev.token) =>
    call(app.baseUrl, method, CONSOLE + path, { token, body });
  const admin = (method: string, path: string, body?: unknown, token = TEST_ADMIN_TOKEN) =>
    call(app.baseUrl, method, `/api/admin${path}`, { token, body });
  const pendingReview = async (personaId: string) =>
    (await admin('GET', '/reviews')).body.reviews.find((r: { id: string }) => r.id === personaId);

  beforeAll(async () => {
    app = await startTestApp();
    dev = await newDeveloper(app, 'persona');
    other = await newDeveloper(app, 'persona-other');
  });
  afterAll(() => app.close());

  it('creates incomplete drafts, but refuses wrong types and unknown fields anywhere, naming them', async () => {
    const draft = await api('POST', '/personas', { manifest: { identity: { name: 'Half-done' } } });
    expect(draft.status).toBe(201);
    expect(draft.body.persona).toMatchObject({
      id: expect.stringMatching(/^persona_/),
      name: 'Half-done',
      tagline: '',
      category: '',
      status: 'draft',
      version: 1,
      review: null,
      submittedAt: null,
      publishedAt: null,
      manifest: { identity: { name: 'Half-done' } },
    });

    const wrongType = await api('POST', '/personas', { manifest: { personality: { warmth: 'very' } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.validationErrors).toEqual([
      expect.stringMatching(/^manifest\.personality\.warmth: /),
    ]);
    const unknown = await api('POST', '/personas', {
      manifest: { identity: { name: 'x', nickname: 'y' }, mood: 'happy' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.validationErrors).toEqual(
      expect.arrayContaining(['manifest.identity.nickname: unknown field', 'manifest.mood: unknown field']),
    );
    expect((await api('POST', '/personas', {})).body.validationErrors).toEqual([
      'manifest: Invalid input: expected object, received undefined',
    ]);
    const list = await api('GET', '/personas');
    expect(list.body.personas.map((p: { name: string }) => p.name)).toEqual(['Half-done']);
  });

  it('lists the categories and validates every rule at once, with warnings that never block', async () => {
    const categories = (await api('GET', '/personas/categories')).body.categories;
    expect(categories).toEqual(
      expect.arrayContaining([
        'customer_support',
        'sales',
        'productivity',
        'education',
        'health_wellness',
        'entertainment',
        'finance',
        'travel',
        'other',
      ]),
    );
    const bad = await api('POST', '/personas', {
      manifest: {
        identity: {
          id: 'No Slug!',
          name: '',
          tagline: 't'.repeat(121),
          description: 'too short',
          aliases: ['a', 'A'],
        },
        voice: { provider: 'openai-compatible', voice_id: 'espeak-en-us-aria' },
        personality: { warmth: 1.5, humor_level: -0.1, directness: 0.5, traits: [] },
        knowledge: { category: 'astrology' },
        behaviors: { greetings: ['g'.repeat(201)] },
      },
    });
    const result = await api('POST', `/personas/${bad.body.persona.id}/validate`);
    expect(result.status).toBe(200);
    expect(result.body.valid).toBe(false);
    expect(result.body.errors).toEqual([
      'identity.id: must be a slug of 3–64 characters (lowercase letters, digits, single hyphens)',
      'identity.name: must be 1–80 characters',
      'identity.tagline: must be at most 120 characters',
      'identity.description: must be 20–2000 characters',
      'identity.aliases: must all be different',
      'voice.provider: must be "espeak-ng", the provider of voice "espeak-en-us-aria"',
      'personality.warmth: must be between 0 and 1',
      'personality.humor_level: must be between 0 and 1',
      'personality.formality: is required',
      'personality.traits: at least one trait is required',
      expect.stringMatching(/^knowledge\.category: must be one of customer_support, /),
      'behaviors.greetings[0]: must be at most 200 characters',
    ]);
    expect(result.body.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/^knowledge\.out_of_scope_topics: /)]),
    );

    const submit = await api('POST', `/personas/${bad.body.persona.id}/submit`);
    expect(submit.status).toBe(409);
    expect(submit.body).toMatchObject({ code: 'CONFLICT', validationErrors: result.body.errors });
    expect((await api('GET', `/personas/${bad.body.persona.id}`)).body.persona.status).toBe('draft');

    const unknownVoice = await api('PUT', `/personas/${bad.body.persona.id}`, {
      manifest: { ...completeManifest('voice-check'), voice: { provider: 'espeak-ng', voice_id: 'nope' } },
    });
    expect(unknownVoice.body.persona.version).toBe(2);
    const check = await api('POST', `/personas/${bad.body.persona.id}/validate`);
    expect(check.body.errors).toEqual(['voice.voice_id: "nope" is not a voice of GET /voices']);

    const good = await api('POST', '/personas', { manifest: completeManifest('warn-check') });
    const ok = await api('POST', `/personas/${good.body.persona.id}/validate`);
    expect(ok.body).toEqual({
      valid: true,
      errors: [],
      warnings: [expect.stringMatching(/^behaviors\.thinking_sounds: /)],
    });
    const twin = await api('POST', '/personas', { manifest: completeManifest('warn-check') });
    expect((await api('POST', `/personas/${twin.body.persona.id}/validate`)).body.errors).toEqual([
      'identity.id: "warn-check" is already used by another of your personas',
    ]);
  });

  it('draft → submitted → published (operator approves through the review workflow) → unpublished → draft', async () => {
    const created = await api('POST', '/personas', { manifest: completeManifest('lifecycle-one') });
    const id = created.body.persona.id;
    const submitted = await api('POST', `/personas/${id}/submit`);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({
      success: true,
      status: 'submitted',
      message: expect.stringContaining('2-5 business days'),
    });
    const persona = (await api('GET', `/personas/${id}`)).body.persona;
    expect(persona).toMatchObject({ status: 'submitted', submittedAt: expect.any(String), review: null });

    // refused while under review
    expect(
      (await api('PUT', `/personas/${id}`, { manifest: completeManifest('lifecycle-one') })).status,
    ).toBe(409);
    expect((await api('POST', `/personas/${id}/submit`)).status).toBe(409);
    expect((await api('POST', `/personas/${id}/unpublish`)).status).toBe(409);

    // the operator's list, and the workflow found in Temporal by its id
    const pending = await pendingReview(id);
    expect(pending).toEqual({
      kind: 'persona',
      id,
      name: 'Ava',
      accountId: dev.publisherId,
      submittedAt: persona.submittedAt,
      dueBy: expect.any(String),
      overdue: false,
      workflowId: `review-${id}-1`,
      tests: pending.tests, // null until the workflow has looked for scenarios: test/review-gate.test.ts
    });
    const dueInDays = (Date.parse(pending.dueBy) - Date.parse(pending.submittedAt)) / 86_400_000;
    expect(dueInDays).toBeGreaterThanOrEqual(5);
    expect(dueInDays).toBeLessThanOrEqual(9);
    const handle = app.ctx.temporal.workflow.getHandle(`review-${id}-1`);
    const described = await waitFor('the review workflow', async () =>
      handle.describe().catch(() => undefined),
    );
    expect(described.type).toBe('reviewPersonaWorkflow');
    expect(described.status.name).toBe('RUNNING');
    expect(described.typedSearchAttributes.get(AccountIdKey)).toBe(dev.publisherId);
    expect(described.typedSearchAttributes.get(PersonaIdKey)).toBe(id);
    expect(described.typedSearchAttributes.get(ReviewKindKey)).toBe('persona');
    expect(described.typedSearchAttributes.get(ReviewOverdueKey)).toBe(false);

    const approved = await admin('POST', `/personas/${id}/review`, { decision: 'approve', notes: 'Lovely' });
    expect(approved.status).toBe(200);
    expect(approved.body.persona).toMatchObject({
      id,
      status: 'published',
      publishedAt: expect.any(String),
      review: { decision: 'approved', notes: 'Lovely', decidedAt: expect.any(String) },
    });
    expect(await handle.result()).toMatchObject({ status: 'approved', notes: 'Lovely' });
    expect(await pendingReview(id)).toBeUndefined();
    const again = await admin('POST', `/personas/${id}/review`, { decision: 'reject' });
    expect(again.status).toBe(409);

    // published: not editable, not deletable; unpublishing makes it a draft again
    expect(
      (await api('PUT', `/personas/${id}`, { manifest: completeManifest('lifecycle-one') })).status,
    ).toBe(409);
    const del = await api('DELETE', `/personas/${id}`);
    expect(del.status).toBe(409);
    expect(del.body.error).toContain('unpublish');
    const unpublished = await api('POST', `/personas/${id}/unpublish`);
    expect(unpublished.body.persona).toMatchObject({ status: 'draft', publishedAt: null });
    const edited = await api('PUT', `/personas/${id}`, {
      manifest: {
        ...completeManifest('lifecycle-one'),
        identity: { ...completeManifest().identity, id: 'lifecycle-one', name: 'Ava 2' },
      },
    });
    expect(edited.body.persona).toMatchObject({ status: 'draft', name: 'Ava 2', version: 2 });
    expect((await api('POST', `/personas/${id}/submit`)).status).toBe(200);
    expect((await pendingReview(id)).workflowId).toBe(`review-${id}-2`);
  });

  it('rejected (with notes) → edited, still rejected → resubmitted; deleting a submitted persona withdraws its review', async () => {
    const id = (await api('POST', '/personas', { manifest: completeManifest('lifecycle-two') })).body.persona
      .id;
    await api('POST', `/personas/${id}/submit`);
    const rejected = await admin('POST', `/personas/${id}/review`, {
      decision: 'reject',
      notes: 'The greeting names the wrong shop.',
    });
    expect(rejected.body.persona).toMatchObject({
      status: 'rejected',
      publishedAt: null,
      review: { decision: 'rejected', notes: 'The greeting names the wrong shop.' },
    });
    const edited = await api('PUT', `/personas/${id}`, { manifest: completeManifest('lifecycle-two') });
    expect(edited.body.persona).toMatchObject({ status: 'rejected', version: 2 });
    expect(edited.body.persona.review.notes).toBe('The greeting names the wrong shop.');

    expect((await api('POST', `/personas/${id}/submit`)).body.status).toBe('submitted');
    const workflowId = `review-${id}-2`;
    expect((await pendingReview(id)).workflowId).toBe(workflowId);
    const handle = app.ctx.temporal.workflow.getHandle(workflowId);
    await waitFor('the second review workflow', async () => handle.describe().catch(() => undefined));

    const deleted = await api('DELETE', `/personas/${id}`);
    expect(deleted.body).toEqual({ success: true, id, deletedAt: expect.any(String) });
    expect(await handle.result()).toMatchObject({ status: 'withdrawn' });
    expect(await pendingReview(id)).toBeUndefined();
    expect((await api('GET', `/personas/${id}`)).status).toBe(404);
    expect((await admin('POST', `/personas/${id}/review`, { decision: 'approve' })).status).toBe(404);
  });

  it('the operator API: auth, bad decisions, and personas not under review', async () => {
    const id = (await api('POST', '/personas', { manifest: completeManifest('ops-checks') })).body.persona.id;
    expect((await admin('GET', '/reviews', undefined, 'wrong')).status).toBe(401);
    expect((await admin('POST', `/personas/${id}/review`, { decision: 'approve' }, 'wrong')).status).toBe(
      401,
    );
    const draft = await admin('POST', `/personas/${id}/review`, { decision: 'approve' });
    expect(draft.status).toBe(409);
    expect(draft.body.error).toContain('not under review');
    const bad = await admin('POST', `/personas/${id}/review`, { decision: 'maybe', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors).toEqual(
      expect.arrayContaining([expect.stringMatching(/^decision: /), 'extra: unknown field']),
    );
    expect((await admin('POST', '/personas/persona_nope/review', { decision: 'approve' })).status).toBe(404);
  });

  it("another account's persona is not found on every route", async () => {
    const id = (await api('POST', '/personas', { manifest: completeManifest('mine-only') })).body.persona.id;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/personas/${id}`],
      ['PUT', `/personas/${id}`, { manifest: completeManifest('mine-only') }],
      ['POST', `/personas/${id}/validate`],
      ['POST', `/personas/${id}/submit`],
      ['POST', `/personas/${id}/unpublish`],
      ['DELETE', `/personas/${id}`],
    ];
    for (const [method, path, body] of routes) {
      const res = await api(method, path, body, other.token);
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect((await api('GET', '/personas', undefined, other.token)).body.personas).toEqual([]);
    expect((await api('GET', `/personas/${id}`)).body.persona.status).toBe('draft');
    expect((await call(app.baseUrl, 'GET', `${CONSOLE}/personas`)).status).toBe(401);
  });
});

describe('the review overdue timer', () => {
  let app: TestApp;
  let dev: Developer;
  beforeAll(async () => {
    app = await startTestApp({ REVIEW_SLA_SECONDS: '2' });
    dev = await newDeveloper(app, 'overdue');
  });
  afterAll(() => app.close());

  it('marks a review overdue when its durable timer fires, and a decision is still taken after', async () => {
    const created = await call(app.baseUrl, 'POST', `${CONSOLE}/personas`, {
      token: dev.token,
      body: { manifest: completeManifest('overdue-one') },
    });
    const id = created.body.persona.id;
    await call(app.baseUrl, 'POST', `${CONSOLE}/personas/${id}/submit`, { token: dev.token });
    const reviews = async () =>
      (await call(app.baseUrl, 'GET', '/api/admin/reviews', { token: TEST_ADMIN_TOKEN })).body.reviews;
    const first = (await reviews()).find((r: { id: string }) => r.id === id);
    expect(first.overdue).toBe(false);
    expect(Date.parse(first.dueBy) - Date.parse(first.submittedAt)).toBe(2000);

    const overdue = await waitFor('the review to be overdue', async () => {
      const r = (await reviews()).find((x: { id: string }) => x.id === id);
      return r?.overdue ? r : undefined;
    });
    expect(overdue.workflowId).toBe(`review-${id}-1`);
    const handle = app.ctx.temporal.workflow.getHandle(overdue.workflowId);
    await waitFor('the overdue search attribute', async () =>
      (await handle.describe()).typedSearchAttributes.get(ReviewOverdueKey) === true ? true : undefined,
    );
    expect(await handle.query(reviewStateQuery)).toMatchObject({
      overdue: true,
      status: 'waiting',
    });

    const approved = await call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(approved.body.persona.status).toBe('published');
  });
});
