import { type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper((a, d) => {
  app = a;
  dev = d;
});

async function send(path: string, contentType: string, token?: string) {
  const res = await fetch(`${app.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ name: 'x', url: 'http://127.0.0.1:9/hook', events: ['session.started'] }),
  });
  return { status: res.status, body: (await res.json()) as { code: string; error: string } };
}

/**
 * P8: `Content-Type: application/json; charset=utf-7` got 403 VALIDATION_FAILED on every route. A
 * JSON body in a charset other than UTF-8 is now 415 UNSUPPORTED_MEDIA_TYPE, and changes nothing.
 */
describe('P8: a JSON body in another charset', () => {
  it.each(['utf-7', 'latin1', 'UTF-16'])(
    'charset=%s is a 415 UNSUPPORTED_MEDIA_TYPE, on an API route and /healthz',
    async (charset) => {
      const api = await send(
        '/api/v2/developers/webhooks',
        `application/json; charset=${charset}`,
        dev.liveKey,
      );
      expect(api.status).toBe(415);
      expect(api.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(api.body.error).toContain(charset);
      const health = await send('/healthz', `application/json; charset="${charset}"`);
      expect([health.status, health.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      const list = await fetch(`${app.baseUrl}/api/v2/developers/webhooks`, {
        headers: { authorization: `Bearer ${dev.liveKey}` },
      });
      expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
    },
  );

  it('UTF-8, said or not, is read as before', async () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
    ]) {
      const res = await send('/api/v2/developers/webhooks', type, dev.liveKey);
      expect([type, res.status]).toEqual([type, 201]);
    }
  });
});
