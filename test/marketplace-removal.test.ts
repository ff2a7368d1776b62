import { installedToolsForUser } from '../src/marketplace';
import { TEST_ADMIN_TOKEN } from './support/env';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { call, startTestApp, type TestApp } from './support/test-app';

const MKT = '/api/marketplace';
const GRACE_SECONDS = 3;

/** Self-service removal: out of browse at once, installations keep working through a short grace period, restore. */
describe('marketplace removal and restore (grace period of 3 s)', () => {
  let app: TestApp;
  let mcp: McpTestServer;
  const PUB = { 'x-publisher-id': 'pub_removal', 'x-publisher-name': 'Removal Co' };
  const USER = { 'x-user-id': 'usr_keeper', 'x-subscription-tier': 'free' };
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = PUB) =>
    call(app.baseUrl, method, MKT + path, { headers, body });
  const decide = (id: string, decision = 'approve') =>
    call(app.baseUrl, 'POST', `/api/admin/marketplace/items/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision },
    });
  const manifest = (id: string, version = '1.0.0') => ({
    id,
    name: `Tool ${id}`,
    version,
    publisher: { id: 'pub_removal', name: 'Removal Co' },
    description: { short: 'Adds numbers', long: 'Adds two numbers, for the removal tests.' },
    execution: { runtime: { type: 'mcp', version: '1' }, endpoint: mcp.url, toolName: 'add' },
    interface: { llmDescription: 'Adds a and b' },
  });
  const publishAndInstall = async (id: string) => {
    expect((await send('POST', '/publisher/submit', { type: 'tool', manifest: manifest(id) })).status).toBe(
      200,
    );
    expect((await decide(id)).status).toBe(200);
    const installed = await send('POST', '/install/tool', { toolId: id }, USER);
    expect(installed.status).toBe(200);
    return installed.body.installation.id as string;
  };
  const runIt = (id: string) => send('POST', `/execute/${id}`, { arguments: { a: 1, b: 2 } }, USER);

  beforeAll(async () => {
    app = await startTestApp({ MARKETPLACE_REMOVAL_GRACE_SECONDS: String(GRACE_SECONDS) });
    mcp = await startMcpTestServer();
  });
  afterAll(async () => {
    await app.close();
    await mcp.close();
  });

  it('DELETE: out of browse and closed to installs at once; existing installations work until the durable timer fires, then 410', async () => {
    const installationId = await publishAndInstall('sunset-tool');
    expect((await runIt('sunset-tool')).status).toBe(200);

    const removed = await send('DELETE', '/publisher/sunset-tool');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      success: true,
      message: expect.stringContaining('1 existing installation keeps working until'),
      itemId: 'sunset-tool',
      status: 'removal_scheduled',
      removesAt: expect.any(String),
      activeInstallations: 1,
      removalId: 'remove-sunset-tool-1',
    });
    const graceMs = Date.parse(removed.body.removesAt) - Date.now();
    expect(graceMs).toBeGreaterThan(0);
    expect(graceMs).toBeLessThanOrEqual(GRACE_SECONDS * 1000);

    expect((await send('GET', '/browse/tools/sunset-tool')).status).toBe(404);
    expect((await send('GET', '/browse/tools?q=sunset')).body.totalCount).toBe(0);
    const install = await send(
      'POST',
      '/install/tool',
      { toolId: 'sunset-tool' },
      { 'x-user-id': 'usr_late' },
    );
    expect([install.status, install.body.code]).toEqual([410, 'GONE']);
    expect((await runIt('sunset-tool')).body).toMatchObject({ success: true, result: { sum: 3 } });
    expect((await installedToolsForUser(app.ctx.orm.em.fork(), 'usr_keeper')).map((t) => t.itemId)).toContain(
      'sunset-tool',
    );
    const listed = (await send('GET', '/install/list', undefined, USER)).body.installations;
    expect(listed.find((i: { id: string }) => i.id === installationId)).toMatchObject({
      status: 'active',
      removesAt: removed.body.removesAt,
    });
    expect((await send('DELETE', '/publisher/sunset-tool')).status).toBe(409);
    expect(
      (await send('PUT', '/publisher/sunset-tool', { manifest: manifest('sunset-tool', '2.0.0') })).status,
    ).toBe(409);

    // the removal workflow holds the timer; it then marks the installations removed
    const handle = app.ctx.temporal.workflow.getHandle('remove-sunset-tool-1');
    expect((await handle.describe()).type).toBe('removeMarketplaceItemWorkflow');
    expect(await handle.result()).toEqual({
      removalId: 'remove-sunset-tool-1',
      status: 'removed',
      installationsRemoved: 1,
      withdrawnReviews: [],
    });
    const gone = await runIt('sunset-tool');
    expect([gone.status, gone.body.code]).toEqual([410, 'GONE']);
    const after = (await send('GET', '/install/list', undefined, USER)).body.installations;
    expect(after.find((i: { id: string }) => i.id === installationId)).toMatchObject({
      status: 'removed',
      removedAt: expect.any(String),
      removesAt: null,
    });
    expect((await send('GET', '/quota/check/sunset-tool', undefined, USER)).body).toMatchObject({
      allowed: false,
      reason: 'Item sunset-tool was removed from the marketplace',
    });
    expect(
      (await installedToolsForUser(app.ctx.orm.em.fork(), 'usr_keeper')).map((t) => t.itemId),
    ).not.toContain('sunset-tool');
    const restore = await send('POST', '/publisher/sunset-tool/restore');
    expect([restore.status, restore.body.code]).toEqual([409, 'CONFLICT']);
    const item = (await send('GET', '/publisher/items')).body.items.find(
      (i: { id: string }) => i.id === 'sunset-tool',
    );
    expect(item).toMatchObject({ status: 'removed', activeInstalls: 0 });
    expect((await send('GET', '/publisher/profile')).body.stats.totalTools).toBe(await countLive());
    // usage history stays readable
    expect((await send('GET', '/usage/sunset-tool', undefined, USER)).body.totals.executions).toBe(2);
  });

  /** Tools of the publisher that are not removed. */
  async function countLive(): Promise<number> {
    const items = (await send('GET', '/publisher/items')).body.items as { status: string }[];
    return items.filter((i) => i.status !== 'removed').length;
  }

  it('restore within the grace period undoes the removal; the workflow ends restored and nothing is removed', async () => {
    await publishAndInstall('comeback-tool');
    expect((await send('POST', '/publisher/comeback-tool/restore')).status).toBe(409); // not being removed
    expect((await send('DELETE', '/publisher/comeback-tool')).status).toBe(200);
    const restored = await send('POST', '/publisher/comeback-tool/restore');
    expect(restored.body).toEqual({
      success: true,
      itemId: 'comeback-tool',
      status: 'approved',
      message: expect.stringContaining('restored'),
    });
    expect(await app.ctx.temporal.workflow.getHandle('remove-comeback-tool-1').result()).toMatchObject({
      status: 'restored',
      installationsRemoved: 0,
    });
    expect((await send('GET', '/browse/tools/comeback-tool')).status).toBe(200);
    await new Promise((r) => setTimeout(r, GRACE_SECONDS * 1000 + 300));
    expect((await runIt('comeback-tool')).status).toBe(200);
    expect(
      (await send('POST', '/install/tool', { toolId: 'comeback-tool' }, { 'x-user-id': 'usr_new' })).status,
    ).toBe(200);
    // a second removal is a second workflow
    expect((await send('DELETE', '/publisher/comeback-tool')).body.removalId).toBe('remove-comeback-tool-2');
  });

  it('a version under review survives a restored removal, and is withdrawn by a completed one', async () => {
    await send('POST', '/publisher/submit', { type: 'tool', manifest: manifest('pending-one') });
    await send('DELETE', '/publisher/pending-one');
    const back = await send('POST', '/publisher/pending-one/restore');
    expect(back.body.status).toBe('pending_review');
    expect((await decide('pending-one')).body.item.status).toBe('approved');

    await publishAndInstall('updating-one');
    await send('PUT', '/publisher/updating-one', { manifest: manifest('updating-one', '1.1.0') });
    const review = app.ctx.temporal.workflow.getHandle('review-updating-one-1.1.0');
    expect((await review.describe()).status.name).toBe('RUNNING');
    await send('DELETE', '/publisher/updating-one');
    const outcome = await app.ctx.temporal.workflow.getHandle('remove-updating-one-1').result();
    expect(outcome).toMatchObject({ status: 'removed', withdrawnReviews: ['review-updating-one-1.1.0'] });
    expect(await review.result()).toMatchObject({ status: 'withdrawn' });
    const reviews = (await call(app.baseUrl, 'GET', '/api/admin/reviews', { token: TEST_ADMIN_TOKEN })).body
      .reviews;
    expect(reviews.map((r: { id: string }) => r.id)).not.toContain('updating-one');
    expect((await decide('updating-one')).status).toBe(409);
  });

  it('a removal whose workflow the API could not start is started by the event dispatcher', async () => {
    await publishAndInstall('orphan-tool');
    // as if the API crashed between committing the removal and starting its workflow
    const connection = app.ctx.orm.em.getConnection();
    await connection.execute(
      `update marketplace_items set status = 'removal_scheduled', status_before_removal = 'approved', removals = 1,
         removal_requested_at = now(), removes_at = now() + interval '1 second' where id = 'orphan-tool'`,
    );
    await connection.execute(
      `insert into marketplace_removals (id, item_id, publisher_id, seq, status, requested_at, removes_at, created_at)
       values ('remove-orphan-tool-1', 'orphan-tool', 'pub_removal', 1, 'scheduled', now(), now() + interval '1 second',
               now() - interval '1 minute')`,
    );
    const handle = app.ctx.temporal.workflow.getHandle('remove-orphan-tool-1');
    const deadline = Date.now() + 20_000;
    while (!(await handle.describe().catch(() => undefined))) {
      if (Date.now() > deadline) throw new Error('the dispatcher did not start the removal workflow');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await handle.result()).toMatchObject({ status: 'removed', installationsRemoved: 1 });
    const [row] = await connection.execute(
      `select workflow_started_at from marketplace_removals where id = 'remove-orphan-tool-1'`,
    );
    expect(row.workflow_started_at).not.toBeNull();
    expect((await runIt('orphan-tool')).status).toBe(410);
  });

  it('bad input and other publishers on the removal routes', async () => {
    const other = { 'x-publisher-id': 'pub_intruder', 'x-publisher-name': 'Intruder' };
    expect((await send('DELETE', '/publisher/comeback-tool', undefined, other)).status).toBe(404);
    expect((await send('POST', '/publisher/comeback-tool/restore', undefined, other)).status).toBe(404);
    expect((await send('DELETE', '/publisher/nope-nope')).status).toBe(404);
    expect((await send('DELETE', `/publisher/${'x'.repeat(65)}`)).status).toBe(400);
    expect((await send('DELETE', '/publisher/comeback-tool', undefined, {})).status).toBe(401);
  });
});
