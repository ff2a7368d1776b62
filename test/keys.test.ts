import { Client } from 'pg';
import { hashApiKey } from '../src/auth/key-material';
import { ALL_SCOPES } from '../src/keys/scopes';
import { TEST_ENV } from './support/env';
import { call, type Developer, type TestApp, withAppAndDeveloper } from './support/test-app';

describe('console API keys (docs/api-contract.md "API keys")', () => {
  let app: TestApp;
  let dev: Developer;
  withAppAndDeveloper((a, d) => {
    app = a;
    dev = d;
  });

  const keys = (method: string, path = '', body?: unknown) =>
    call(app.baseUrl, method, `/api/v1/developers/keys${path}`, { token: dev.token, body });

  it('creates a key: full key once, masked prefix, every scope by default, only a hash stored', async () => {
    const res = await keys('POST', '', { name: 'Production server', environment: 'live' });
    expect(res.status).toBe(200);
    const { key, warning } = res.body;
    expect(warning).toMatch(/only once/);
    expect(key).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'Production server',
      environment: 'live',
      fullKey: expect.stringMatching(/^pk_live_[0-9A-Za-z]{40}$/),
      prefix: `${key.fullKey.slice(0, 12)}****`,
      scopes: [...ALL_SCOPES],
      createdAt: expect.any(String),
    });

    const db = new Client({ connectionString: TEST_ENV.databaseUrl() });
    await db.connect();
    try {
      const row = await db.query('select * from api_keys where id = $1', [key.id]);
      expect(row.rows[0].key_hash).toBe(hashApiKey(key.fullKey));
      expect(JSON.stringify(row.rows[0])).not.toContain(key.fullKey);
    } finally {
      await db.end();
    }

    const list = await keys('GET');
    const listed = list.body.keys.find((k: { id: string }) => k.id === key.id);
    expect(listed).toEqual({
      id: key.id,
      name: 'Production server',
      environment: 'live',
      prefix: key.prefix,
      scopes: [...ALL_SCOPES],
      createdAt: key.createdAt,
      lastUsedAt: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(key.fullKey);
  });

  it('creates test keys (pk_test_) and records lastUsedAt on use', async () => {
    const res = await keys('POST', '', { name: 'sandbox', environment: 'test' });
    expect(res.body.key.fullKey).toMatch(/^pk_test_/);
    await call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: res.body.key.fullKey });
    const listed = (await keys('GET')).body.keys.find((k: { id: string }) => k.id === res.body.key.id);
    expect(Date.now() - Date.parse(listed.lastUsedAt)).toBeLessThan(60_000);
  });

  it('revokes: gone from the list, refused at once, a second revoke is 404', async () => {
    const { key } = (await keys('POST', '', { name: 'to revoke' })).body;
    const revoked = await keys('DELETE', `/${key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, id: key.id, revokedAt: expect.any(String) });
    expect((await keys('GET')).body.keys.map((k: { id: string }) => k.id)).not.toContain(key.id);
    const use = await call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: key.fullKey });
    expect(use.status).toBe(401);
    expect((await keys('DELETE', `/${key.id}`)).status).toBe(404);
    expect((await keys('DELETE', '/key_doesnotexist')).status).toBe(404);
  });

  it.each([
    [{}, 'name: '],
    [{ name: '' }, 'name: '],
    [{ name: 'x', environment: 'staging' }, 'environment: '],
    [{ name: 'x', scopes: ['secrets:read', 'root'] }, 'scopes.1: '],
    [{ name: 'x', scopes: [] }, 'scopes: '],
    [{ name: 'x', admin: true }, 'admin: unknown field'],
  ])('rejects %j naming the field, and creates nothing', async (body, field) => {
    const before = (await keys('GET')).body.keys.length;
    const res = await keys('POST', '', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.validationErrors.some((e: string) => e.startsWith(field))).toBe(true);
    expect((await keys('GET')).body.keys.length).toBe(before);
  });
});
