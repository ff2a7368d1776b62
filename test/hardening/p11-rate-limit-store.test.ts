import { Client } from 'pg';
import { TEST_ENV } from '../support/env';
import { call, type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper((a, d) => {
  app = a;
  dev = d;
});

async function withDatabase<T>(fn: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: TEST_ENV.databaseUrl() });
  await db.connect();
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

const read = () => call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.liveKey });

/**
 * P11: the rate-limit store had no timeout (a locked table held requests 7.8 s) and a missing table
 * gave 500. A store that does not answer within 2 s, or fails, is now a 503 SERVICE_UNAVAILABLE with
 * Retry-After, and requests go on once it is back.
 */
describe('P11: the rate-limit store failing', () => {
  it('a locked table: 503 with Retry-After after about 2 s, not a wait for the lock', async () => {
    await withDatabase(async (db) => {
      await db.query('begin');
      await db.query('lock table rate_limits in access exclusive mode');
      try {
        const t0 = Date.now();
        const res = await read();
        const waited = Date.now() - t0;
        expect([res.status, res.body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
        expect(res.headers.get('retry-after')).toBe('2');
        expect(waited).toBeLessThan(5000);
      } finally {
        await db.query('rollback');
      }
    });
    expect((await read()).status).toBe(200);
  });

  it('a missing table: 503, not 500', async () => {
    await withDatabase(async (db) => {
      await db.query('alter table rate_limits rename to rate_limits_p11');
      try {
        const res = await read();
        expect([res.status, res.body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
      } finally {
        await db.query('alter table rate_limits_p11 rename to rate_limits');
      }
    });
    expect((await read()).status).toBe(200);
  });
});
