import { Client } from 'pg';
import { type DatabaseProxy, quietCutConnectionLogs, startDatabaseProxy } from '../support/db-proxy';
import { createIsolatedDatabase } from '../support/isolated-db';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from '../support/test-app';

/**
 * A connection cut while its transaction's BEGIN is on the wire. knex still runs the transaction's
 * callback when BEGIN failed: the callback's first query then fails with "Transaction query already
 * complete", and the cut itself goes only to the transaction's own promise. That message must be
 * read as the database being unreachable (503 with Retry-After, so a client retries), not as a bug
 * (500). CI's chaos run met it as a 500 on `POST /events/trigger` during its database outage.
 */
describe('a database connection cut at its BEGIN', () => {
  let db: { url: string; drop(): Promise<void> };
  let proxy: DatabaseProxy;
  let app: TestApp;
  let dev: Developer;

  beforeAll(async () => {
    quietCutConnectionLogs();
    db = await createIsolatedDatabase('cutbegin');
    proxy = await startDatabaseProxy(db.url);
    // one pooled connection, so the warm-up query and the request's BEGIN share it
    app = await startTestApp({ DATABASE_URL: proxy.url, DATABASE_POOL_MAX: '1' });
    dev = await newDeveloper(app, 'cutbegin');
  });

  afterAll(async () => {
    try {
      await proxy?.restore().catch(() => undefined);
      await app?.close();
    } finally {
      await proxy?.close();
      await db?.drop();
      jest.restoreAllMocks();
    }
  });

  const eventCount = async () => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query('select count(*)::int as n from events')).rows[0].n as number;
    } finally {
      await client.end();
    }
  };

  it('answers 503 with Retry-After, emits nothing, and the retry succeeds', async () => {
    const trigger = () =>
      call(app.baseUrl, 'POST', '/api/v2/developers/events/trigger', {
        token: dev.testKey,
        body: { type: 'session.started' },
      });
    expect((await trigger()).status).toBe(201); // the key is known and cached; the pool is warm
    const before = await eventCount();

    const tripped = proxy.refuseAt(/select 'cut-at-begin'/, /\bBEGIN;/);
    await app.ctx.orm.em.getConnection().execute(`select 'cut-at-begin'`);
    const res = await trigger();
    await tripped;
    expect([res.status, res.body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);

    await proxy.restore();
    expect(await eventCount()).toBe(before);
    expect((await trigger()).status).toBe(201);
    expect(await eventCount()).toBe(before + 1);
  }, 60_000);
});
