import { call, startTestApp, type TestApp } from '../support/test-app';

/** Bad keys from one client, each claiming another address in X-Forwarded-For. */
async function badKeys(app: TestApp, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await call(app.baseUrl, 'GET', '/api/v2/developers/secrets', {
      token: `pk_live_${'x'.repeat(40)}`,
      headers: { 'x-forwarded-for': `10.1.${Math.floor(i / 250)}.${i % 250}` },
    });
    statuses.push(res.status);
  }
  return statuses;
}

/**
 * P6: the failed-auth rate limit believed X-Forwarded-For from any loopback or private peer, so a
 * client naming a new address each time was never limited (320 of 320 bad keys → 401). The header is
 * now believed only from the proxies TRUST_PROXY names.
 */
describe('P6: X-Forwarded-For is trusted only from TRUST_PROXY', () => {
  it('unset: a client cannot choose its address, and is limited', async () => {
    const app = await startTestApp({ ANONYMOUS_RATE_LIMIT: '5' });
    try {
      const statuses = await badKeys(app, 8);
      // the budget is this address's (other tests of the run may have spent some of it)
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
    } finally {
      await app.close();
    }
  });

  it('TRUST_PROXY=loopback: the proxy’s X-Forwarded-For is the client’s address', async () => {
    const app = await startTestApp({ ANONYMOUS_RATE_LIMIT: '5', TRUST_PROXY: 'loopback' });
    try {
      expect(await badKeys(app, 8)).toEqual(Array(8).fill(401));
    } finally {
      await app.close();
    }
  });
});
