import { ReviewKindKey } from '../src/temporal/search-attributes';
import { TEST_ADMIN_TOKEN } from './support/env';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { call, startTestApp, type TestApp } from './support/test-app';

const MKT = '/api/marketplace';

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('marketplace submission and review', () => {
  let app: TestApp;
  let mcp: McpTestServer;
  const PUB = { 'x-publisher-id': 'pub_acme', 'x-publisher-name': 'Acme Tools' };
  const OTHER = { 'x-publisher-id': 'pub_other', 'x-publisher-name': 'Other Co' };
  const pub = (method: string, path: string, body?: unknown, headers: Record<string, string> = PUB) =>
    call(app.baseUrl, method, MKT + path, { headers, body });
  const admin = (method: string, path: string, body?: unknown, token = TEST_ADMIN_TOKEN) =>
    call(app.baseUrl, method, `/api/admin${path}`, { token, body });
  const tool = (id: string, overrides: Record<string, unknown> = {}) => ({
    id,
    name: 'Order Lookup',
    version: '1.0.0',
    publisher: { id: 'pub_acme', name: 'Acme Tools' },
    description: {
      short: 'Looks up an order by id',
      long: 'Finds the status of any order of the shop by its id.',
    },
    execution: {
      runtime: { type: 'mcp', version: '2025-06-18' },
      endpoint: mcp.url,
      toolName: 'lookup_order',
    },
    interface: {
      llmDescription: 'Use to find the status of an order; takes orderId.',
      inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
    permissions: ['orders:read'],
    ...overrides,
  });
  const decide = (id: string, decision: 'approve' | 'reject', notes?: string) =>
    admin('POST', `/marketplace/items/${id}/review`, { decision, ...(notes ? { notes } : {}) });
  const pendingReview = async (id: string) =>
    (await admin('GET', '/reviews')).body.reviews.find((r: { id: string }) => r.id === id);

  beforeAll(async () => {
    app = await startTestApp();
    mcp = await startMcpTestServer();
  });
  afterAll(async () => {
    await app.close();
    await mcp.close();
  });

  it('submits a tool: pending_review, with the automated MCP check’s findings and the 2-5 business days message', async () => {
    const res = await pub('POST', '/publisher/submit', { type: 'tool', manifest: tool('order-lookup') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      itemId: 'order-lookup',
      status: 'pending_review',
      version: '1.0.0',
      reviewId: 'review-order-lookup-1.0.0',
      reviewNotes: expect.arrayContaining([
        'Manifest lint passed',
        expect.stringMatching(
          /^MCP check passed: connected to http:\/\/127\.0\.0\.1:\d+\/mcp \(orders-test-server 1\.2\.3\) in \d+ ms; tools\/list lists "lookup_order"$/,
        ),
        expect.stringMatching(/^pricing: none given/),
      ]),
      message: expect.stringContaining('2-5 business days'),
    });
    expect(mcp.methods).toEqual(expect.arrayContaining(['initialize', 'tools/list']));

    // the review workflow, found in Temporal by its id, waits for the operator
    const handle = app.ctx.temporal.workflow.getHandle('review-order-lookup-1.0.0');
    const described = await handle.describe();
    expect(described.type).toBe('reviewMarketplaceItemWorkflow');
    expect(described.status.name).toBe('RUNNING');
    expect(described.typedSearchAttributes.get(ReviewKindKey)).toBe('marketplace_item');
    expect(await pendingReview('order-lookup')).toEqual({
      kind: 'marketplace_item',
      id: 'order-lookup',
      name: 'Order Lookup 1.0.0',
      accountId: 'pub_acme',
      submittedAt: expect.any(String),
      dueBy: expect.any(String),
      overdue: false,
      tests: null,
      workflowId: 'review-order-lookup-1.0.0',
    });
    // not in browse, not installable while pending
    expect((await call(app.baseUrl, 'GET', `${MKT}/browse/tools/order-lookup`)).status).toBe(404);

    const approved = await decide('order-lookup', 'approve', 'Works well');
    expect(approved.status).toBe(200);
    expect(approved.body.item).toMatchObject({
      id: 'order-lookup',
      status: 'approved',
      version: '1.0.0',
      publishedAt: expect.any(String),
      pendingVersion: null,
      versions: [
        {
          version: '1.0.0',
          status: 'approved',
          decisionNotes: 'Works well',
          checksPassed: true,
          reviewId: 'review-order-lookup-1.0.0',
        },
      ],
    });
    expect(await handle.result()).toMatchObject({ status: 'approved', notes: 'Works well' });
    expect(await pendingReview('order-lookup')).toBeUndefined();
    expect((await decide('order-lookup', 'reject')).status).toBe(409);
    expect((await call(app.baseUrl, 'GET', `${MKT}/browse/tools/order-lookup`)).status).toBe(200);
  });

  it('the automated check against a server lacking the tool, and an unreachable one, is a finding for the operator', async () => {
    const missing = await pub('POST', '/publisher/submit', {
      type: 'tool',
      manifest: tool('missing-tool', {
        execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcp.url, toolName: 'refund_order' },
      }),
    });
    expect(missing.status).toBe(200);
    expect(missing.body.reviewNotes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^MCP check failed: tools\/list of .* does not list "refund_order" \(it lists add, lookup_order, slow, sleep_ms, fails\)$/,
        ),
      ]),
    );
    const detail = await pub('GET', '/publisher/missing-tool');
    expect(detail.body.item.versions[0]).toMatchObject({ checksPassed: false, status: 'pending_review' });

    const down = await pub('POST', '/publisher/submit', {
      type: 'tool',
      manifest: tool('down-tool', {
        execution: {
          runtime: { type: 'mcp', version: '1' },
          endpoint: 'http://127.0.0.1:9/mcp',
          toolName: 'x',
        },
      }),
    });
    expect(down.body.reviewNotes).toEqual(
      expect.arrayContaining([expect.stringMatching(/^MCP check failed: could not connect: /)]),
    );
    // the operator decides knowing it: rejected with notes, the item is rejected
    const rejected = await decide(
      'missing-tool',
      'reject',
      'The tool refund_order does not exist on your server',
    );
    expect(rejected.body.item).toMatchObject({ status: 'rejected', version: '1.0.0' });
    expect(rejected.body.item.versions[0]).toMatchObject({
      status: 'rejected',
      decisionNotes: 'The tool refund_order does not exist on your server',
    });
  });

  it('docs/api-contract.md "Marketplace manifests": no publisher headers → 401; another publisher in the manifest → 403; invalid manifests → 400 with every reason; a taken id → 409', async () => {
    const none = await call(app.baseUrl, 'POST', `${MKT}/publisher/submit`, {
      body: { type: 'tool', manifest: tool('x-y-z') },
    });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');

    const spoof = await pub(
      'POST',
      '/publisher/submit',
      { type: 'tool', manifest: tool('spoofed', {}) },
      OTHER,
    );
    expect(spoof.status).toBe(403);
    expect(spoof.body).toMatchObject({
      success: false,
      code: 'FORBIDDEN',
      error: expect.stringContaining('pub_acme'),
    });
    // 403 even when the rest is wrong too
    expect(
      (
        await pub(
          'POST',
          '/publisher/submit',
          { type: 'tool', manifest: { publisher: { id: 'pub_acme' } } },
          OTHER,
        )
      ).status,
    ).toBe(403);

    const bad = await pub('POST', '/publisher/submit', {
      type: 'tool',
      manifest: {
        ...tool('Bad Id!'),
        version: '1.0',
        description: { short: 's'.repeat(141), long: 'ok' },
        execution: { runtime: { type: 'mcp', version: '1' } },
        pricing: { model: 'per_execution' },
        permissions: ['a:read', 'a:read'],
        extra: true,
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(bad.body.validationErrors).toEqual(
      expect.arrayContaining([
        'manifest.extra: unknown field',
        'manifest.description.short: must be at most 140 characters',
        expect.stringMatching(/^manifest\.pricing\.priceCents: /),
        'manifest.id: must be a slug of 3–64 characters (lowercase letters, digits, single hyphens)',
        'manifest.version: must be a semantic version (MAJOR.MINOR.PATCH, e.g. 1.0.0; see semver.org)',
        'manifest.permissions.1: "a:read" is listed twice',
        'manifest.execution.endpoint: is required for the mcp runtime',
        'manifest.execution.toolName: is required for the mcp runtime',
      ]),
    );
    const { id: _id, ...noId } = tool('no-id');
    const missingId = await pub('POST', '/publisher/submit', { type: 'tool', manifest: noId });
    expect(missingId.status).toBe(400);
    expect(missingId.body.validationErrors).toEqual([expect.stringMatching(/^manifest\.id: /)]);
    for (const version of ['v1.0.0', '1', '01.0.0', 'latest']) {
      const res = await pub('POST', '/publisher/submit', {
        type: 'tool',
        manifest: tool('semver-check', { version }),
      });
      expect([version, res.status, res.body.validationErrors]).toEqual([
        version,
        400,
        ['manifest.version: must be a semantic version (MAJOR.MINOR.PATCH, e.g. 1.0.0; see semver.org)'],
      ]);
    }
    const reserved = await pub('POST', '/publisher/submit', { type: 'tool', manifest: tool('summary') });
    expect(reserved.body.validationErrors).toEqual(['manifest.id: "summary" is reserved']);
    expect(
      (await pub('POST', '/publisher/submit', { type: 'plugin', manifest: tool('abc') })).body
        .validationErrors,
    ).toEqual([expect.stringMatching(/^type: /)]);
    expect((await pub('POST', '/publisher/submit', { type: 'tool' })).status).toBe(400);
    expect(
      (await pub('POST', '/publisher/submit', { type: 'tool', manifest: tool('abc'), more: 1 })).body
        .validationErrors,
    ).toEqual(['more: unknown field']);
    // nothing was stored by any refused submission
    expect((await pub('GET', '/publisher/items')).body.items.map((i: { id: string }) => i.id)).not.toContain(
      'spoofed',
    );

    const taken = await pub('POST', '/publisher/submit', {
      type: 'tool',
      manifest: tool('order-lookup', { version: '9.0.0' }),
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('CONFLICT');
    // another publisher cannot take it either
    const stolen = await pub(
      'POST',
      '/publisher/submit',
      { type: 'tool', manifest: tool('order-lookup', { publisher: { id: 'pub_other', name: 'Other Co' } }) },
      OTHER,
    );
    expect(stolen.status).toBe(409);
  });

  it('listed-only runtimes and http runtimes; endpoint URLs must pass the outbound rules', async () => {
    const listed = await pub('POST', '/publisher/submit', {
      type: 'tool',
      manifest: tool('docker-thing', { execution: { runtime: { type: 'docker', version: '24' } } }),
    });
    expect(listed.status).toBe(200);
    expect(listed.body.reviewNotes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^execution\.runtime\.type: "docker" is listed but not executable here/),
      ]),
    );
    const http = await pub('POST', '/publisher/submit', {
      type: 'tool',
      manifest: tool('http-thing', {
        execution: { runtime: { type: 'http', version: '1' }, endpoint: 'ftp://example.com/x' },
      }),
    });
    expect(http.status).toBe(400);
    expect(http.body.validationErrors).toEqual(['manifest.execution.endpoint: must be an http or https URL']);
  });

  it('updates: greater versions only; an approved item stays approved and serves its approved version while the next is reviewed, and a rejection leaves it live', async () => {
    await pub('POST', '/publisher/submit', { type: 'tool', manifest: tool('versioned') });
    await decide('versioned', 'approve');

    for (const version of ['1.0.0', '0.9.0', '1.0.0-rc.1']) {
      const res = await pub('PUT', '/publisher/versioned', { manifest: tool('versioned', { version }) });
      expect([version, res.status, res.body.code]).toEqual([version, 409, 'CONFLICT']);
    }
    const wrongId = await pub('PUT', '/publisher/versioned', {
      manifest: tool('other-id', { version: '2.0.0' }),
    });
    expect(wrongId.status).toBe(400);
    expect(wrongId.body.validationErrors).toEqual([
      'manifest.id: must be "versioned", the item being updated',
    ]);
    expect(
      (await pub('PUT', '/publisher/versioned', { manifest: tool('versioned', { version: '2.0.0' }) }, OTHER))
        .status,
    ).toBe(404);
    expect(
      (await pub('PUT', '/publisher/nope-nope', { manifest: tool('nope-nope', { version: '2.0.0' }) }))
        .status,
    ).toBe(404);

    const update = await pub('PUT', '/publisher/versioned', {
      manifest: tool('versioned', { version: '1.1.0', name: 'Order Lookup Plus' }),
    });
    expect(update.status).toBe(200);
    expect(update.body).toMatchObject({
      success: true,
      itemId: 'versioned',
      status: 'approved',
      version: '1.1.0',
      reviewId: 'review-versioned-1.1.0',
    });
    const browse = async () => (await call(app.baseUrl, 'GET', `${MKT}/browse/tools/versioned`)).body.tool;
    expect(await browse()).toMatchObject({ version: '1.0.0', name: 'Order Lookup' });
    const items = (await pub('GET', '/publisher/items')).body.items;
    expect(items.find((i: { id: string }) => i.id === 'versioned')).toMatchObject({
      status: 'approved',
      version: '1.0.0',
      latestVersion: '1.1.0',
      pendingVersion: '1.1.0',
    });

    // a newer submission withdraws the one under review
    const newer = await pub('PUT', '/publisher/versioned', {
      manifest: tool('versioned', { version: '1.2.0' }),
    });
    expect(newer.body.status).toBe('approved');
    expect(await app.ctx.temporal.workflow.getHandle('review-versioned-1.1.0').result()).toMatchObject({
      status: 'withdrawn',
    });
    expect((await pendingReview('versioned')).workflowId).toBe('review-versioned-1.2.0');

    const rejected = await decide('versioned', 'reject', 'Breaks the schema');
    expect(rejected.body.item).toMatchObject({ status: 'approved', version: '1.0.0', pendingVersion: null });
    expect(await browse()).toMatchObject({ version: '1.0.0' });

    await pub('PUT', '/publisher/versioned', {
      manifest: tool('versioned', { version: '2.0.0', name: 'Order Lookup 2' }),
    });
    const approved = await decide('versioned', 'approve');
    expect(approved.body.item).toMatchObject({
      status: 'approved',
      version: '2.0.0',
      name: 'Order Lookup 2',
    });
    expect(
      approved.body.item.versions.map((v: { version: string; status: string }) => [v.version, v.status]),
    ).toEqual([
      ['2.0.0', 'approved'],
      ['1.2.0', 'rejected'],
      ['1.1.0', 'withdrawn'],
      ['1.0.0', 'superseded'],
    ]);
    expect(await browse()).toMatchObject({ version: '2.0.0', name: 'Order Lookup 2' });
  });

  it('a rejected first version is fixed by a greater version, which is reviewed again', async () => {
    await pub('POST', '/publisher/submit', { type: 'tool', manifest: tool('second-try') });
    expect((await decide('second-try', 'reject', 'Describe it better')).body.item.status).toBe('rejected');
    const again = await pub('PUT', '/publisher/second-try', {
      manifest: tool('second-try', { version: '1.0.1' }),
    });
    expect(again.body).toMatchObject({ status: 'pending_review', version: '1.0.1' });
    expect((await decide('second-try', 'approve')).body.item).toMatchObject({
      status: 'approved',
      version: '1.0.1',
    });
  });

  it('agents: a persona validated by the console rules and approved marketplace tools', async () => {
    const agent = (id: string, overrides: Record<string, unknown> = {}) => ({
      id,
      name: 'Ava Support Agent',
      displayName: 'Ava',
      version: '1.0.0',
      publisher: { id: 'pub_acme', name: 'Acme Tools' },
      description: {
        short: 'Order support agent',
        long: 'Answers order questions with the order lookup tool.',
      },
      persona: completeManifest('ava-agent'),
      tools: ['order-lookup'],
      ...overrides,
    });
    const bad = await pub('POST', '/publisher/submit', {
      type: 'agent',
      manifest: agent('bad-agent', {
        persona: { ...completeManifest('ava-agent'), voice: { provider: 'espeak-ng', voice_id: 'nope' } },
        tools: ['order-lookup', 'missing-tool', 'nothing-here'],
        displayName: '',
      }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors).toEqual(
      expect.arrayContaining([
        'manifest.displayName: is required',
        'manifest.persona.voice.voice_id: "nope" is not a voice of GET /voices',
        'manifest.tools.1: "missing-tool" is not an approved marketplace tool',
        'manifest.tools.2: "nothing-here" is not an approved marketplace tool',
      ]),
    );
    const ok = await pub('POST', '/publisher/submit', { type: 'agent', manifest: agent('ava-agent') });
    expect(ok.status).toBe(200);
    expect(ok.body.reviewNotes).toEqual(
      expect.arrayContaining(['Agent tools check passed: order-lookup are approved marketplace tools']),
    );
    const decided = await decide('ava-agent', 'approve');
    expect(decided.body).toMatchObject({ item: { status: 'approved' } });
  });

  it('the operator API: auth, bad input, items not under review', async () => {
    expect((await decide('order-lookup', 'approve')).status).toBe(409);
    expect((await admin('POST', '/marketplace/items/nope-nope/review', { decision: 'approve' })).status).toBe(
      404,
    );
    expect(
      (await admin('POST', '/marketplace/items/order-lookup/review', { decision: 'approve' }, 'wrong'))
        .status,
    ).toBe(401);
    const bad = await admin('POST', '/marketplace/items/order-lookup/review', { decision: 'ok', x: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors).toEqual(
      expect.arrayContaining([expect.stringMatching(/^decision: /), 'x: unknown field']),
    );
    const view = await admin('GET', '/marketplace/items/order-lookup');
    expect(view.body.item).toMatchObject({ id: 'order-lookup', status: 'approved' });
    expect((await admin('GET', '/marketplace/items/nope-nope')).status).toBe(404);
  });
});

describe('the marketplace review overdue timer', () => {
  let app: TestApp;
  let mcp: McpTestServer;
  beforeAll(async () => {
    app = await startTestApp({ REVIEW_SLA_SECONDS: '2' });
    mcp = await startMcpTestServer();
  });
  afterAll(async () => {
    await app.close();
    await mcp.close();
  });

  it('marks a marketplace review overdue after its checks, and still takes the decision', async () => {
    const headers = { 'x-publisher-id': 'pub_slow', 'x-publisher-name': 'Slow' };
    const res = await call(app.baseUrl, 'POST', `${MKT}/publisher/submit`, {
      headers,
      body: {
        type: 'tool',
        manifest: {
          id: 'overdue-tool',
          name: 'Overdue',
          version: '0.1.0',
          publisher: { id: 'pub_slow', name: 'Slow' },
          description: { short: 'Adds', long: 'Adds two numbers.' },
          execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcp.url, toolName: 'add' },
          interface: { llmDescription: 'Adds a and b' },
        },
      },
    });
    expect(res.status).toBe(200);
    const review = await waitFor('overdue', async () => {
      const reviews = (await call(app.baseUrl, 'GET', '/api/admin/reviews', { token: TEST_ADMIN_TOKEN })).body
        .reviews;
      const r = reviews.find((x: { id: string }) => x.id === 'overdue-tool');
      return r?.overdue ? r : undefined;
    });
    expect(Date.parse(review.dueBy) - Date.parse(review.submittedAt)).toBe(2000);
    const decided = await call(app.baseUrl, 'POST', '/api/admin/marketplace/items/overdue-tool/review', {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(decided.body.item.status).toBe('approved');
  });
});
