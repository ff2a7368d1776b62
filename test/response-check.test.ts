import { z } from 'zod';
import { ApiError } from '../src/http/errors';
import { RESPONSE_CHECK_HEADER } from '../src/http/response-check';
import { call, type Developer, type TestApp, withAppAndDeveloper } from './support/test-app';

/** Under test every JSON answer is parsed against the schema its route declares. */
describe('responses are checked against their declared schemas under test', () => {
  let app: TestApp;
  let dev: Developer;
  withAppAndDeveloper((a, d) => {
    app = a;
    dev = d;
  });
  const Declared = z.object({ success: z.literal(true), data: z.object({ n: z.number() }) });
  beforeAll(() => {
    const route = (path: string, answer: () => unknown) =>
      app.roots.platform.route({
        method: 'get',
        path,
        summary: 'test only',
        success: { description: 'a number', schema: Declared },
        // Deliberately off-schema answers, which the type of `handler` would otherwise refuse.
        handler: answer as () => z.input<typeof Declared>,
      });
    route('/__shape/ok', () => ({ success: true, data: { n: 1 } }));
    route('/__shape/wrong-type', () => ({ success: true, data: { n: 'one' } }));
    route('/__shape/undeclared', () => ({ success: true, data: { n: 1, secret: 'leak' } }));
    route('/__shape/bad-error', () => {
      throw new ApiError(409, 'CONFLICT', 'conflict', undefined, { surprise: true });
    });
  });

  const raw = (path: string) =>
    fetch(`${app.baseUrl}/api/v2/developers${path}`, { headers: { authorization: `Bearer ${dev.liveKey}` } });

  it('a matching answer goes out unchanged', async () => {
    const res = await call(app.baseUrl, 'GET', '/api/v2/developers/__shape/ok', { token: dev.liveKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { n: 1 } });
    expect(res.headers.get(RESPONSE_CHECK_HEADER)).toBeNull();
  });

  it.each([
    ['/__shape/wrong-type', 'data.n'],
    ['/__shape/undeclared', 'data.secret: not declared in the schema'],
    ['/__shape/bad-error', 'surprise'],
  ])('%s is replaced by a 500 naming the problem, and the test client throws', async (path, problem) => {
    const res = await raw(path);
    expect(res.status).toBe(500);
    expect(res.headers.get(RESPONSE_CHECK_HEADER)).toBe('failed');
    const body = (await res.json()) as { code: string; error: string };
    expect(body.code).toBe('INTERNAL');
    expect(body.error).toContain(problem);
    await expect(
      call(app.baseUrl, 'GET', `/api/v2/developers${path}`, { token: dev.liveKey }),
    ).rejects.toThrow(problem);
  });
});
