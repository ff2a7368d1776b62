/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { type FuzzRig, startFuzzRig } from '../support/fuzz/rig';
import { must } from '../support/fuzz/seed';
import { StreamUnderTest } from '../support/fuzz/stream';
import { completeManifest } from '../support/personas';
import { call, type Developer, newDeveloper } from '../support/test-app';
import { streamUrl } from '../support/voice-stream';

/**
 * What the contract fuzzer (fuzz-operations, fuzz-stream) found, one case each, so a regression shows
 * here by name as well as in the fuzzer's next run.
 */
let rig: FuzzRig;
let dev: Developer;
const v2 = (
  method: string,
  path: string,
  opts: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
) => call(rig.app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, ...opts });

beforeAll(async () => {
  rig = await startFuzzRig('findings');
  dev = await newDeveloper(rig.app, 'findings');
}, 120_000);
afterAll(() => rig?.close());

describe('contract fuzzer findings', () => {
  it('an unpaired surrogate in a body string or field name is a 400 naming it (was a 500 from PostgreSQL jsonb)', async () => {
    const inValue = await v2('POST', '/activities', {
      rawBody: '{"type":"order.placed","payload":{"note":"\\ud800"}}',
    });
    expect([inValue.status, inValue.body.validationErrors]).toEqual([
      400,
      ['payload.note: must be well-formed Unicode'],
    ]);
    const inName = await v2('POST', '/activities', {
      rawBody: '{"type":"order.placed","payload":{"\\udc00":1}}',
    });
    expect([inName.status, inName.body.validationErrors]).toEqual([
      400,
      ['payload: field names must not hold unpaired surrogates'],
    ]);
    const paired = await v2('POST', '/activities', {
      body: { type: 'order.placed', payload: { note: '💥' } },
    });
    expect(paired.status).toBe(201);
  });

  it('a blank query number is a 400, not 0 (was ?offset= read as offset 0)', async () => {
    for (const query of ['offset=', 'offset=%20', 'limit=%0D%0A%09']) {
      const res = await v2('GET', `/activities?${query}`);
      expect([query, res.status, res.body.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
    }
    const marketplace = await call(rig.app.baseUrl, 'GET', '/api/marketplace/browse/tools?offset=%20');
    expect(marketplace.status).toBe(400);
    expect((await v2('GET', '/activities?offset=0&limit=5')).status).toBe(200);
  });

  it('a body that is not application/json is a 415 and changes nothing (was read as no body: a 200 that changed nothing)', async () => {
    const created = must(
      await v2('POST', '/activities', { body: { type: 'order.placed', payload: {} } }),
      'activity',
    );
    const id = created.body.data.id as string;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch+json']) {
      const res = await v2('PUT', `/activities/${id}`, {
        rawBody: JSON.stringify({ type: 'order.shipped' }),
        headers: { 'content-type': type },
      });
      expect([type, res.status, res.body.code]).toEqual([type, 415, 'UNSUPPORTED_MEDIA_TYPE']);
    }
    expect((await v2('GET', `/activities/${id}`)).body.data.type).toBe('order.placed');
    // a body without a Content-Type is not read either
    const untyped = await fetch(`${rig.app.baseUrl}/api/v2/developers/activities/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${dev.testKey}` },
      body: new Blob([JSON.stringify({ type: 'order.shipped' })]),
    });
    expect(untyped.status).toBe(415);
    // no body, typed or not, is still fine where a route takes none
    const empty = await fetch(`${rig.app.baseUrl}/api/v2/developers/activities/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${dev.testKey}`, 'content-type': 'text/plain' },
    });
    expect(empty.status).toBe(200);
  });

  it('a stream frame over 256 KiB closes that stream (1009) and nothing else (was an uncaught error: the process ended)', async () => {
    const open = async () => {
      const persona = must(
        await call(rig.app.baseUrl, 'POST', '/api/v1/developers/personas', {
          token: dev.token,
          body: { manifest: completeManifest(`findings-${Date.now()}`) },
        }),
        'persona',
      ).body.persona.id;
      const session = must(
        await v2('POST', '/sessions', { body: { personaId: persona, userId: 'caller' } }),
        'session',
      );
      const stream = await StreamUnderTest.open(streamUrl(rig.app.baseUrl, session.body.data.id), {
        authorization: `Bearer ${dev.testKey}`,
      });
      await stream.until(() => stream.messages.some((m) => m.type === 'session.ready'));
      return stream;
    };
    const big = await open();
    big.socket.send('x'.repeat(300_000));
    await big.until(() => big.closed !== undefined);
    expect(big.closed?.code).toBe(1009);

    // the same process goes on serving streams; a NUL in input.text is refused like on any route
    const next = await open();
    next.socket.send(JSON.stringify({ type: 'input.text', text: 'a\u0000b' }));
    next.socket.send(JSON.stringify({ type: 'input.text', text: '\ud800' }));
    const refusals = () => next.messages.filter((m) => m.type === 'error' && m.code === 'INVALID_MESSAGE');
    await next.until(() => refusals().length === 2);
    expect(refusals()).toEqual([
      { type: 'error', code: 'INVALID_MESSAGE', message: 'text: must not contain NUL characters' },
      { type: 'error', code: 'INVALID_MESSAGE', message: 'text: must be well-formed Unicode' },
    ]);
    expect(next.messages.some((m) => m.type === 'turn.recorded')).toBe(false);
    next.socket.close();
  });
});
