import { call, type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
);

const v2 = (method: string, path: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.liveKey, body });

/**
 * P13: routes that declare no query or body accepted unknown query fields, NUL in the query and any
 * body (`GET /webhooks/:id?zzz=%00` → 200), though the docs promise 400. They are now checked too.
 */
describe('P13: a route without a query or body schema still refuses what it does not take', () => {
  it('unknown query fields and NUL are a 400 naming them, on the platform and console APIs', async () => {
    const hook = await v2('POST', '/webhooks', {
      name: 'p13',
      url: 'http://127.0.0.1:9/hook',
      events: ['session.started'],
    });
    expect(hook.status).toBe(201);
    const id = hook.body.data.id as string;
    const nul = await v2('GET', `/webhooks/${id}?zzz=%00`);
    expect([nul.status, nul.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(nul.body.validationErrors.join(' ')).toMatch(/zzz/);
    const unknown = await v2('GET', `/webhooks/${id}?zzz=1`);
    expect([unknown.status, unknown.body.validationErrors]).toEqual([400, ['zzz: unknown field']]);
    const me = await call(app.baseUrl, 'GET', '/api/v1/developers/me?debug=1', { token: dev.token });
    expect([me.status, me.body.validationErrors]).toEqual([400, ['debug: unknown field']]);
    expect((await v2('GET', `/webhooks/${id}`)).status).toBe(200);
  });

  it('a body sent to a route that takes none is a 400 and changes nothing; an empty object is fine', async () => {
    const hook = await v2('POST', '/webhooks', {
      name: 'p13b',
      url: 'http://127.0.0.1:9/hook',
      events: ['session.started'],
    });
    const id = hook.body.data.id as string;
    const refused = await v2('DELETE', `/webhooks/${id}`, { force: true });
    expect([refused.status, refused.body.validationErrors]).toEqual([
      400,
      ['body: this route takes no body'],
    ]);
    expect((await v2('GET', `/webhooks/${id}`)).status).toBe(200);
    expect((await v2('DELETE', `/webhooks/${id}`, [1])).status).toBe(400);
    expect((await v2('DELETE', `/webhooks/${id}`, {})).status).toBe(200);
  });
});
