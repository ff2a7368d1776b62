import { Client } from 'pg';
import { resolveSecrets } from '../src/secrets/secrets.service';
import { TEST_ENV } from './support/env';
import { call, type Developer, newDeveloper, type TestApp, withAppAndDeveloper } from './support/test-app';

describe('secrets API (docs/api-contract.md "Secrets")', () => {
  let app: TestApp;
  let dev: Developer;
  withAppAndDeveloper((a, d) => {
    app = a;
    dev = d;
  });

  const secrets = (method: string, path = '', body?: unknown, token = dev.liveKey) =>
    call(app.baseUrl, method, `/api/v2/developers/secrets${path}`, { token, body });

  it('creates (201), replaces (200), lists names only, never returns or stores the value in clear', async () => {
    const created = await secrets('PUT', '/CRM_TOKEN', { value: 'super-secret-value-1' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: { name: 'CRM_TOKEN', createdAt: expect.any(String), updatedAt: expect.any(String) },
    });
    const replaced = await secrets('PUT', '/CRM_TOKEN', { value: 'super-secret-value-2' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.createdAt).toBe(created.body.data.createdAt);

    const list = await secrets('GET');
    expect(list.body.data).toEqual([replaced.body.data]);
    expect(JSON.stringify(list.body)).not.toContain('super-secret');

    const db = new Client({ connectionString: TEST_ENV.databaseUrl() });
    await db.connect();
    try {
      const { rows } = await db.query('select * from secrets where name = $1 and account_id = $2', [
        'CRM_TOKEN',
        dev.publisherId,
      ]);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows[0])).not.toContain('super-secret');
      expect(rows[0].ciphertext).toMatch(/^v1\.[0-9a-f]{8}\./);
    } finally {
      await db.end();
    }

    const em = app.ctx.orm.em.fork();
    const values = await resolveSecrets(
      em,
      app.ctx.encryptor,
      { accountId: dev.publisherId, environment: 'live' },
      ['CRM_TOKEN'],
    );
    expect(values.get('CRM_TOKEN')).toBe('super-secret-value-2');
    await expect(
      resolveSecrets(em, app.ctx.encryptor, { accountId: dev.publisherId, environment: 'test' }, [
        'CRM_TOKEN',
      ]),
    ).rejects.toMatchObject({ status: 400, validationErrors: ['secrets.CRM_TOKEN: no such secret'] });
  });

  it('paginates with limit and offset, sorted by name', async () => {
    const other = await newDeveloper(app, 'paging');
    for (const name of ['C', 'A', 'B', 'D']) await secrets('PUT', `/${name}`, { value: name }, other.liveKey);
    const page = await secrets('GET', '?limit=2&offset=1', undefined, other.liveKey);
    expect(page.body.data.map((s: { name: string }) => s.name)).toEqual(['B', 'C']);
    expect(page.body.pagination).toEqual({ total: 4, limit: 2, offset: 1 });
  });

  it('deletes; a second delete is 404', async () => {
    await secrets('PUT', '/TEMP', { value: 'x' });
    const del = await secrets('DELETE', '/TEMP');
    expect(del.body).toEqual({ success: true, data: { deleted: true, name: 'TEMP' } });
    expect((await secrets('DELETE', '/TEMP')).status).toBe(404);
  });

  it.each([
    ['PUT', '/9BAD', { value: 'x' }, 'name: '],
    ['PUT', '/GOOD', {}, 'value: '],
    ['PUT', '/GOOD', { value: '' }, 'value: '],
    ['PUT', '/GOOD', { value: 42 }, 'value: '],
    ['PUT', '/GOOD', { value: 'x', note: 'hi' }, 'note: unknown field'],
    ['GET', '?limit=201', undefined, 'limit: '],
    ['GET', '?limit=0', undefined, 'limit: '],
    ['GET', '?offset=-1', undefined, 'offset: '],
    ['GET', '?limit=ten', undefined, 'limit: '],
    ['GET', '?sort=name', undefined, 'sort: unknown field'],
  ])('%s %s %j → 400 naming the field, nothing changed', async (method, path, body, field) => {
    const before = (await secrets('GET')).body.pagination.total;
    const res = await secrets(method, path, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: expect.any(String),
      code: 'VALIDATION_FAILED',
      validationErrors: expect.arrayContaining([expect.stringMatching(new RegExp(`^${field}`))]),
    });
    expect((await secrets('GET')).body.pagination.total).toBe(before);
  });
});
