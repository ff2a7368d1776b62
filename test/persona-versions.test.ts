import { TEST_ADMIN_TOKEN } from './support/env';
import { completeManifest } from './support/personas';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * Issue 27, item 4: every approval freezes a version, a revision is edited while the live version
 * serves, a rollback makes an earlier version live at once, and a session keeps the version it
 * started with (its greeting, and the out-of-scope refusals its turns decide on, show which).
 */
const V1 = completeManifest('versioned-ava');
const V2 = {
  ...V1,
  knowledge: { ...V1.knowledge, out_of_scope_topics: ['cooking'] },
  behaviors: { ...V1.behaviors, greetings: ['Hello from Ava, version two.'] },
};

describe('persona versions', () => {
  let app: TestApp;
  let dev: Developer;
  let other: Developer;
  const v1 = (method: string, path: string, body?: unknown, token = dev.token) =>
    call(app.baseUrl, method, `/api/v1/developers${path}`, { token, body });
  const approve = (id: string) =>
    call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
  const startSession = (key: string, body: Record<string, unknown>) =>
    call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: key,
      body: { userId: 'caller', ...body },
    });
  const say = async (sessionId: string, text: string) => {
    const res = await call(app.baseUrl, 'POST', `/api/v2/developers/sessions/${sessionId}/turns`, {
      token: dev.liveKey,
      body: { text },
    });
    expect([text, res.status]).toEqual([text, 200]);
    return res.body.data.route as string;
  };
  const rolledBackEvents = async (personaId: string) =>
    (
      await app.ctx.orm.em
        .fork()
        .getConnection()
        .execute<{ environment: string; payload: string }[]>(
          "select environment, payload from events where type = 'persona.rolled_back' and persona_id = ? order by created_at",
          [personaId],
        )
    ).map((r) => ({
      environment: r.environment,
      ...JSON.parse(r.payload),
    }));

  /** A persona of `dev` approved once (version 1 live). */
  async function publishedPersona(manifest: unknown = V1): Promise<string> {
    const id = (await v1('POST', '/personas', { manifest })).body.persona.id as string;
    expect((await v1('POST', `/personas/${id}/submit`)).status).toBe(200);
    expect((await approve(id)).body.persona).toMatchObject({ status: 'published', liveVersion: 1 });
    return id;
  }

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
    dev = await newDeveloper(app, 'versions');
    other = await newDeveloper(app, 'versions-other');
  });
  afterAll(() => app.close());

  it('revise → approve → rollback, with sessions pinned to their version and live keys on the live one', async () => {
    const id = await publishedPersona();
    const first = await v1('GET', `/personas/${id}/versions`);
    expect(first.body).toEqual({
      liveVersion: 1,
      versions: [
        { version: 1, live: true, manifest: V1, approvedAt: expect.any(String), reviewId: `review-${id}-1` },
      ],
    });
    // a published persona is not edited: it is revised
    expect((await v1('PUT', `/personas/${id}`, { manifest: V2 })).status).toBe(409);
    const revised = await v1('POST', `/personas/${id}/revise`);
    expect(revised.body.persona).toMatchObject({ status: 'draft', liveVersion: 1 });
    expect((await v1('POST', `/personas/${id}/revise`)).body.persona.status).toBe('draft'); // open already
    expect((await v1('PUT', `/personas/${id}`, { manifest: V2 })).status).toBe(200);

    // the live version keeps serving while the revision is a draft and under review
    const s1 = await startSession(dev.liveKey, { personaId: id });
    expect(s1.body.data).toMatchObject({ personaVersion: 1, greeting: V1.behaviors.greetings[0] });
    const sandbox = await startSession(dev.testKey, { personaId: id });
    expect(sandbox.body.data).toMatchObject({
      personaVersion: null,
      greeting: 'Hello from Ava, version two.',
    });
    expect((await v1('POST', `/personas/${id}/submit`)).status).toBe(200);
    expect((await v1('POST', `/personas/${id}/revise`)).status).toBe(409); // under review
    expect((await startSession(dev.liveKey, { personaId: id })).body.data.personaVersion).toBe(1);

    // approving the revision makes it version 2, live
    expect((await approve(id)).body.persona).toMatchObject({ status: 'published', liveVersion: 2 });
    const listed = (await v1('GET', `/personas/${id}/versions`)).body;
    expect(listed.versions.map((v: { version: number; live: boolean }) => [v.version, v.live])).toEqual([
      [2, true],
      [1, false],
    ]);
    const s2 = (await startSession(dev.liveKey, { personaId: id })).body.data;
    expect(s2).toMatchObject({ personaVersion: 2, greeting: 'Hello from Ava, version two.' });
    // each session's turns run its own version's manifest
    expect(await say(s1.body.data.id, 'Can you give me medical advice?')).toBe('refusal');
    expect(await say(s1.body.data.id, 'Let us talk about cooking')).not.toBe('refusal');
    expect(await say(s2.id, 'Let us talk about cooking')).toBe('refusal');
    expect(await say(s2.id, 'Can you give me medical advice?')).not.toBe('refusal');

    // the diff between any two versions is one call
    const diff = await v1('GET', `/personas/${id}/versions/diff?from=1&to=2`);
    expect(diff.body.from).toBe(1);
    expect(diff.body.to).toBe(2);
    expect(diff.body.patch).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/knowledge/out_of_scope_topics/0', value: 'cooking' },
        { op: 'replace', path: '/behaviors/greetings/0', value: 'Hello from Ava, version two.' },
      ]),
    );
    expect(diff.body.patch).toHaveLength(2);
    expect((await v1('GET', `/personas/${id}/versions/diff?from=2&to=2`)).body.patch).toEqual([]);

    // rollback: version 1 is live at once for new sessions; s2 keeps version 2
    const rolled = await v1('POST', `/personas/${id}/rollback`, { version: 1 });
    expect(rolled.status).toBe(200);
    expect(rolled.body.persona).toMatchObject({ status: 'published', liveVersion: 1, manifest: V2 });
    const s3 = (await startSession(dev.liveKey, { personaId: id })).body.data;
    expect(s3).toMatchObject({ personaVersion: 1, greeting: V1.behaviors.greetings[0] });
    expect(await say(s2.id, 'Let us talk about cooking')).toBe('refusal');
    expect(await say(s3.id, 'Can you give me medical advice?')).toBe('refusal');
    const [event, ...more] = await rolledBackEvents(id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ environment: 'live', type: 'persona.rolled_back' });
    expect(event.data).toEqual({
      personaId: id,
      fromVersion: 2,
      toVersion: 1,
      rolledBackAt: expect.any(String),
    });
    // the live version again: nothing changes, nothing is emitted
    expect((await v1('POST', `/personas/${id}/rollback`, { version: 1 })).body.persona.liveVersion).toBe(1);
    expect(await rolledBackEvents(id)).toHaveLength(1);

    // a live key runs only the live version; a test key may name any approved one
    expect((await startSession(dev.liveKey, { personaId: id, personaVersion: 2 })).status).toBe(409);
    expect((await startSession(dev.liveKey, { personaId: id, personaVersion: 1 })).status).toBe(201);
    const pinned = await startSession(dev.testKey, { personaId: id, personaVersion: 2 });
    expect(pinned.body.data).toMatchObject({ personaVersion: 2, greeting: 'Hello from Ava, version two.' });
    expect((await startSession(dev.testKey, { personaId: id, personaVersion: 3 })).status).toBe(404);
    const detail = await call(app.baseUrl, 'GET', `/api/v2/developers/sessions/${s2.id}`, {
      token: dev.liveKey,
    });
    expect(detail.body.data.personaVersion).toBe(2);
  });

  it('unpublishing takes the live version away and keeps the versions; a live persona is not deleted', async () => {
    const id = await publishedPersona(completeManifest('unpublish-me'));
    expect((await v1('POST', `/personas/${id}/revise`)).status).toBe(200);
    expect((await v1('DELETE', `/personas/${id}`)).status).toBe(409); // live, with a revision open
    const unpublished = await v1('POST', `/personas/${id}/unpublish`);
    expect(unpublished.body.persona).toMatchObject({ status: 'draft', liveVersion: null, publishedAt: null });
    expect((await startSession(dev.liveKey, { personaId: id })).status).toBe(409);
    expect((await startSession(dev.testKey, { personaId: id, personaVersion: 1 })).status).toBe(201);
    expect((await v1('GET', `/personas/${id}/versions`)).body).toMatchObject({
      liveVersion: null,
      versions: [{ version: 1, live: false }],
    });
    expect((await v1('POST', `/personas/${id}/rollback`, { version: 1 })).status).toBe(409); // not live
    expect((await v1('POST', `/personas/${id}/revise`)).status).toBe(409);
    expect((await v1('DELETE', `/personas/${id}`)).status).toBe(200);
  });

  it("refuses bad input and answers 404 for another account's persona or an unknown version", async () => {
    const id = await publishedPersona(completeManifest('input-checks'));
    const draft = (await v1('POST', '/personas', { manifest: completeManifest('never-approved') })).body
      .persona.id;
    for (const body of [
      {},
      { version: 0 },
      { version: 1.5 },
      { version: '1' },
      { version: 1, extra: true },
      [],
    ]) {
      const res = await v1('POST', `/personas/${id}/rollback`, body);
      expect([body, res.status, res.body.code]).toEqual([body, 400, 'VALIDATION_FAILED']);
    }
    for (const query of [
      '',
      '?from=1',
      '?from=abc&to=1',
      '?from=&to=1',
      '?from=0&to=1',
      '?from=1&to=1&x=2',
    ]) {
      const res = await v1('GET', `/personas/${id}/versions/diff${query}`);
      expect([query, res.status]).toEqual([query, 400]);
    }
    expect((await v1('POST', `/personas/${id}/rollback`, { version: 7 })).status).toBe(404);
    expect((await v1('GET', `/personas/${id}/versions/diff?from=1&to=7`)).status).toBe(404);
    expect((await v1('POST', `/personas/${draft}/revise`)).status).toBe(409); // never approved
    expect((await v1('GET', `/personas/${draft}/versions`)).body).toEqual({
      liveVersion: null,
      versions: [],
    });
    for (const [method, path, body] of [
      ['GET', `/personas/${id}/versions`],
      ['GET', `/personas/${id}/versions/diff?from=1&to=1`],
      ['POST', `/personas/${id}/revise`],
      ['POST', `/personas/${id}/rollback`, { version: 1 }],
    ] as const) {
      const res = await v1(method, path, body, other.token);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect((await startSession(other.testKey, { personaId: id, personaVersion: 1 })).status).toBe(404);
    expect((await startSession(dev.testKey, { personaId: id, personaVersion: 0 })).status).toBe(400);
  });
});
