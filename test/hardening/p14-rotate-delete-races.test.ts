import { verifyWebhookSignature } from '../../src/webhooks/signature';
import { type Receiver, startReceiver } from '../support/receiver';
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
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const v2 = (method: string, path: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.liveKey, body });

/**
 * P14: five concurrent rotate-secret calls answered five secrets of which only two verified,
 * and the "previous" secret was the one before all of them; five concurrent deletes all answered 200.
 * Rotations and deletes of one webhook now queue on its row.
 */
describe('P14: concurrent rotations and deletes of one webhook', () => {
  it('rotations are serialized: the two secrets that sign are the last two answered', async () => {
    const hook = await v2('POST', '/webhooks', {
      name: 'p14',
      url: receiver.url,
      events: ['session.started'],
    });
    const original = hook.body.data.secret as string;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => v2('POST', `/webhooks/${hook.body.data.id}/rotate-secret`)),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const secrets = answers.map((a) => a.body.data.secret as string);
    expect(new Set(secrets).size).toBe(5);
    receiver.requests.length = 0;
    expect((await v2('POST', `/webhooks/${hook.body.data.id}/test`)).status).toBe(200);
    const [request] = receiver.requests;
    const header = request.headers['x-service-signature'] as string;
    const signing = secrets.filter((s) => verifyWebhookSignature(request.rawBody, header, s));
    // the current secret and the previous one, both answered by a rotation (never the original)
    expect(signing).toHaveLength(2);
    expect(verifyWebhookSignature(request.rawBody, header, original)).toBe(false);
  });

  it('of 10 concurrent deletes one answers 200 and the rest 404', async () => {
    const hook = await v2('POST', '/webhooks', {
      name: 'p14-delete',
      url: receiver.url,
      events: ['session.started'],
    });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => v2('DELETE', `/webhooks/${hook.body.data.id}`)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404, 404, 404, 404, 404, 404, 404, 404]);
  });
});
