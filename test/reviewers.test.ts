import { TEST_ADMIN_TOKEN } from './support/env';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * Reviewers (docs/console.md "The review queue"): an operator marks a console user as reviewer, whose
 * ID token the review routes of the operator API then take; anyone else's is refused with 403.
 */
describe('reviewers: console users an operator marks, deciding reviews with their ID token', () => {
  let app: TestApp;
  let mcp: McpTestServer;
  let dev: Developer;
  let reviewer: Developer;
  let bystander: Developer;
  const admin = (method: string, path: string, body?: unknown, token = TEST_ADMIN_TOKEN) =>
    call(app.baseUrl, method, `/api/admin${path}`, { token, body });
  const v1 = (method: string, path: string, token: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v1/developers${path}`, { token, body });
  const mark = (publisherId: string, value: boolean, token = TEST_ADMIN_TOKEN) =>
    admin('PUT', `/accounts/${publisherId}/reviewer`, { reviewer: value }, token);
  const FORBIDDEN = {
    success: false,
    error:
      'Only operators, and the console users an operator marked as reviewers, may use the review endpoints',
    code: 'FORBIDDEN',
  };

  async function submittedPersona(slug: string): Promise<string> {
    const id = (await v1('POST', '/personas', dev.token, { manifest: completeManifest(slug) })).body.persona
      .id;
    expect((await v1('POST', `/personas/${id}/submit`, dev.token)).status).toBe(200);
    return id as string;
  }

  beforeAll(async () => {
    app = await startTestApp();
    mcp = await startMcpTestServer();
    dev = await newDeveloper(app, 'reviewed');
    reviewer = await newDeveloper(app, 'reviewer');
    bystander = await newDeveloper(app, 'bystander');
  });
  afterAll(async () => {
    await app.close();
    await mcp.close();
  });

  it('operators mark and unmark reviewers with ADMIN_TOKEN only; /me and GET /reviewers say who is one', async () => {
    const me = async (token: string) => (await v1('GET', '/me', token)).body;
    expect((await me(bystander.token)).reviewer).toBe(false);

    // only ADMIN_TOKEN marks: no token, a console token (even a reviewer's), a wrong token → 401
    expect(
      (
        await call(app.baseUrl, 'PUT', `/api/admin/accounts/${bystander.publisherId}/reviewer`, {
          body: { reviewer: true },
        })
      ).status,
    ).toBe(401);
    expect((await mark(bystander.publisherId, true, bystander.token)).status).toBe(401);
    expect((await mark(bystander.publisherId, true, 'not-the-admin-token')).status).toBe(401);
    // bad input is a 400 naming the field; an unknown account a 404; nothing changes
    const bad = await admin('PUT', `/accounts/${bystander.publisherId}/reviewer`, { reviewer: 'yes', x: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors).toEqual(expect.arrayContaining([expect.stringMatching(/^reviewer: /)]));
    expect((await mark('pub_nobody', true)).status).toBe(404);
    expect((await me(bystander.token)).reviewer).toBe(false);

    const marked = await mark(bystander.publisherId, true);
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({
      publisherId: bystander.publisherId,
      email: bystander.email,
      reviewer: true,
      reviewerSince: expect.any(String),
    });
    expect((await me(bystander.token)).reviewer).toBe(true);
    // marking again keeps the first mark's time
    expect((await mark(bystander.publisherId, true)).body.reviewerSince).toBe(marked.body.reviewerSince);
    const listed = (await admin('GET', '/reviewers')).body.reviewers;
    expect(listed).toContainEqual(marked.body);
    expect((await admin('GET', '/reviewers', undefined, bystander.token)).status).toBe(401);
    // a reviewer is no operator: the operator-only routes refuse their token
    expect((await mark(reviewer.publisherId, true, bystander.token)).status).toBe(401);
    const plan = await admin(
      'PUT',
      `/accounts/${bystander.publisherId}/plan`,
      { plan: 'pro' },
      bystander.token,
    );
    expect(plan.status).toBe(401);

    const unmarked = await mark(bystander.publisherId, false);
    expect(unmarked.body).toEqual({ ...marked.body, reviewer: false, reviewerSince: null });
    expect((await me(bystander.token)).reviewer).toBe(false);
    const after = (await admin('GET', '/reviewers')).body.reviewers;
    expect(after.map((r: { publisherId: string }) => r.publisherId)).not.toContain(bystander.publisherId);
  });

  it('a reviewer approves a persona with their ID token (it then answers a live key); anyone else is refused 403 and nothing changes', async () => {
    const id = await submittedPersona('reviewer-approves');
    const workflowId = `review-${id}-1`;
    const persona = async () => (await v1('GET', `/personas/${id}`, dev.token)).body.persona;
    const liveSession = () =>
      call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
        token: dev.liveKey,
        body: { personaId: id, userId: 'caller' },
      });
    expect((await liveSession()).status).toBe(409);

    // a console user who is not a reviewer: 403 with the error body on every review route
    for (const [method, path, body] of [
      ['GET', '/reviews', undefined],
      ['GET', `/reviews/${workflowId}`, undefined],
      ['POST', `/personas/${id}/review`, { decision: 'approve', notes: 'me too' }],
    ] as const) {
      const refused = await admin(method, path, body, bystander.token);
      expect([method, path, refused.status, refused.body]).toEqual([method, path, 403, FORBIDDEN]);
    }
    // a token that does not verify is a 401, as on the console API
    expect((await admin('GET', '/reviews', undefined, `${reviewer.token}x`)).status).toBe(401);
    expect((await persona()).status).toBe('submitted');
    expect((await admin('GET', `/reviews/${workflowId}`)).body.review).toMatchObject({ status: 'pending' });

    expect((await mark(reviewer.publisherId, true)).status).toBe(200);
    const queue = await admin('GET', '/reviews', undefined, reviewer.token);
    expect(queue.status).toBe(200);
    expect(queue.body.reviews).toContainEqual(expect.objectContaining({ kind: 'persona', id, workflowId }));
    const detail = await admin('GET', `/reviews/${workflowId}`, undefined, reviewer.token);
    expect(detail.body).toMatchObject({
      review: { kind: 'persona', id, status: 'pending', submission: 1, overdue: false, notes: null },
      manifest: { identity: { id: 'reviewer-approves' } },
      version: null,
      checks: null,
    });
    const bad = await admin('POST', `/personas/${id}/review`, { decision: 'maybe' }, reviewer.token);
    expect(bad.status).toBe(400);

    const approved = await admin(
      'POST',
      `/personas/${id}/review`,
      { decision: 'approve', notes: 'Fine by me' },
      reviewer.token,
    );
    expect(approved.status).toBe(200);
    expect(approved.body.persona).toMatchObject({
      status: 'published',
      liveVersion: 1,
      review: { decision: 'approved', notes: 'Fine by me' },
    });
    expect((await liveSession()).status).toBe(201);
    const decided = await admin('GET', `/reviews/${workflowId}`, undefined, reviewer.token);
    expect(decided.body.review).toMatchObject({
      status: 'approved',
      notes: 'Fine by me',
      decidedAt: expect.any(String),
    });
    expect(decided.body.manifest.identity.id).toBe('reviewer-approves');

    // unmarked, the same token is refused at once
    await mark(reviewer.publisherId, false);
    const next = await submittedPersona('reviewer-unmarked');
    const refused = await admin('POST', `/personas/${next}/review`, { decision: 'approve' }, reviewer.token);
    expect([refused.status, refused.body]).toEqual([403, FORBIDDEN]);
    expect((await v1('GET', `/personas/${next}`, dev.token)).body.persona.status).toBe('submitted');
  });

  it("a reviewer decides a marketplace item's review, and sees its automated checks", async () => {
    await mark(reviewer.publisherId, true);
    const headers = { 'x-publisher-id': 'pub_reviewed', 'x-publisher-name': 'Reviewed Co' };
    const manifest = {
      id: `reviewed-tool-${Date.now().toString(36)}`,
      name: 'Order Lookup',
      version: '1.0.0',
      publisher: { id: 'pub_reviewed', name: 'Reviewed Co' },
      description: { short: 'Looks up an order by id', long: 'Finds the status of any order by its id.' },
      execution: {
        runtime: { type: 'mcp', version: '2025-06-18' },
        endpoint: mcp.url,
        toolName: 'lookup_order',
      },
      interface: { llmDescription: 'Finds an order', inputSchema: { type: 'object', properties: {} } },
      permissions: ['orders:read'],
    };
    const submitted = await call(app.baseUrl, 'POST', '/api/marketplace/publisher/submit', {
      headers,
      body: { type: 'tool', manifest },
    });
    expect(submitted.status).toBe(200);
    const workflowId = submitted.body.reviewId as string;
    const detail = await admin('GET', `/reviews/${workflowId}`, undefined, reviewer.token);
    expect(detail.body).toMatchObject({
      review: { kind: 'marketplace_item', id: manifest.id, status: 'pending' },
      manifest: { id: manifest.id, version: '1.0.0' },
      version: '1.0.0',
      checks: { passed: true, findings: expect.arrayContaining(['Manifest lint passed']) },
    });
    const refused = await admin(
      'POST',
      `/marketplace/items/${manifest.id}/review`,
      { decision: 'reject' },
      bystander.token,
    );
    expect(refused.status).toBe(403);
    const rejected = await admin(
      'POST',
      `/marketplace/items/${manifest.id}/review`,
      { decision: 'reject', notes: 'Describe the input' },
      reviewer.token,
    );
    expect(rejected.status).toBe(200);
    expect(rejected.body.item.versions[0]).toMatchObject({
      status: 'rejected',
      decisionNotes: 'Describe the input',
    });
    expect((await admin('GET', '/reviews/review-nothing-1', undefined, reviewer.token)).status).toBe(404);
    expect((await admin('GET', '/reviews/not-a-review', undefined, reviewer.token)).status).toBe(400);
  });
});
