import { randomInt } from 'node:crypto';
import { TEST_ADMIN_TOKEN } from '../support/env';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from '../support/test-app';
import { refusedUpgrade, streamUrl } from '../support/voice-stream';

/** The test app's ANONYMOUS_RATE_LIMIT: refused credentials per address and minute. */
const BUDGET = 4;

let app: TestApp;
let dev: Developer;
beforeAll(async () => {
  // behind a proxy on loopback, so each test is a client of its own address (X-Forwarded-For)
  app = await startTestApp({ ANONYMOUS_RATE_LIMIT: String(BUDGET), TRUST_PROXY: 'loopback' });
  dev = await newDeveloper(app);
});
afterAll(() => app?.close());

/** An address no other test of the run spends from (the counters are shared by the run's apps). */
const freshAddress = () => `198.18.${randomInt(256)}.${randomInt(1, 255)}`;

const unknownKey = `pk_live_${'Q'.repeat(40)}`;

/**
 * Refused credentials cost nothing on the voice stream's upgrade, `/metrics` and
 * `/readyz?deep=true`: 400 unknown keys and 320 wrong admin tokens were all 401, never 429. Each now
 * spends its address's ANONYMOUS_RATE_LIMIT budget, as on the API roots.
 */
describe('refused credentials spend their address’s budget everywhere', () => {
  it('stream upgrades: unknown keys and bad client tokens reach 429 with Retry-After before the WebSocket opens', async () => {
    const address = freshAddress();
    const url = streamUrl(app.baseUrl, 'ses_doesnotmatter');
    const statuses: number[] = [];
    for (let i = 0; i < BUDGET; i++) {
      const refused =
        i % 2 === 0
          ? await refusedUpgrade(url, { authorization: `Bearer ${unknownKey}`, 'x-forwarded-for': address })
          : await refusedUpgrade(streamUrl(app.baseUrl, 'ses_doesnotmatter', 'not-a-token'), {
              'x-forwarded-for': address,
            });
      statuses.push(refused.status);
    }
    expect(statuses).toEqual(Array(BUDGET).fill(401));
    const over = await refusedUpgrade(url, {
      authorization: `Bearer ${unknownKey}`,
      'x-forwarded-for': address,
    });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      success: false,
      error: 'Too many unauthenticated requests from this address',
      code: 'RATE_LIMIT_EXCEEDED',
    });
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(over.retryAfter)).toBeLessThanOrEqual(60);

    // other clients are not refused: another address still gets its 401, and a valid key from the
    // spent address goes on to the session lookup (404: no such session)
    const other = await refusedUpgrade(url, {
      authorization: `Bearer ${unknownKey}`,
      'x-forwarded-for': freshAddress(),
    });
    expect(other.status).toBe(401);
    const valid = await refusedUpgrade(url, {
      authorization: `Bearer ${dev.liveKey}`,
      'x-forwarded-for': address,
    });
    expect([valid.status, valid.body.code]).toEqual([404, 'NOT_FOUND']);
  });

  it.each([['/metrics'], ['/readyz?deep=true']])(
    '%s: wrong admin tokens reach 429 with Retry-After; the right token still passes',
    async (path) => {
      const address = freshAddress();
      const ask = (token: string) =>
        call(app.baseUrl, 'GET', path, { token, headers: { 'x-forwarded-for': address } });
      const statuses: number[] = [];
      for (let i = 0; i < BUDGET; i++) statuses.push((await ask(`wrong-admin-token-${i}`)).status);
      expect(statuses).toEqual(Array(BUDGET).fill(401));
      const over = await ask('wrong-admin-token-again');
      expect([over.status, over.body.code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // the budget counts refusals only: the operator's own token is not turned away
      expect((await ask(TEST_ADMIN_TOKEN)).status).toBe(200);
    },
  );
});
