import { importJWK, SignJWT } from 'jose';
import { DEV_ALGORITHM, DEV_AUDIENCE, DEV_ISSUER, loadDevIdpKeys } from '../../src/auth/dev-idp';
import { call, type TestApp, withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
withAppAndDeveloper((a) => {
  app = a;
});

/** A token signed by the trusted development identity provider's key with exactly `claims`. */
async function signed(claims: Record<string, unknown>): Promise<string> {
  const { privateJwk } = await loadDevIdpKeys(app.dataDir);
  const key = await importJWK(privateJwk, DEV_ALGORITHM);
  return new SignJWT(claims).setProtectedHeader({ alg: DEV_ALGORITHM, kid: privateJwk.kid }).sign(key);
}

const now = () => Math.floor(Date.now() / 1000);
const me = (token: string) => call(app.baseUrl, 'GET', '/api/v1/developers/me', { token });

/**
 * P12: an ID token with `exp` = 10^15 was accepted, so a leaked token opened the console for ever.
 * A token valid for longer than AUTH_MAX_TOKEN_LIFETIME_S (24 h by default) is now refused.
 */
describe('P12: ID tokens have a maximum lifetime', () => {
  const claims = { iss: DEV_ISSUER, aud: DEV_AUDIENCE, sub: 'dev|p12@example.com', email: 'p12@example.com' };

  it.each([
    ['exp = 10^15, no iat', { exp: 1e15 }],
    ['25 h from now', { exp: now() + 25 * 3600, iat: now() }],
    ['issued 2 days ago, ending in an hour', { exp: now() + 3600, iat: now() - 2 * 86_400 }],
  ])('%s: 401 naming the exp claim', async (_label, times) => {
    const res = await me(await signed({ ...claims, ...times }));
    expect([res.status, res.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(res.body.error).toMatch(/exp claim/);
  });

  it('12 h (what `npm run token` signs) and 24 h are accepted', async () => {
    expect((await me(await signed({ ...claims, iat: now(), exp: now() + 12 * 3600 }))).status).toBe(200);
    expect((await me(await signed({ ...claims, iat: now(), exp: now() + 24 * 3600 }))).status).toBe(200);
  });
});
