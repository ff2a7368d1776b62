import { type HostileServer, startHostileServer } from '../support/hostile-server';
import { call, type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
  { plan: 'enterprise' },
);

/** A webhook tool's cap is 1 MiB (ANSWER_LIMITS.webhookTool); these answers are 16 MiB. */
const ANSWER_BYTES = 16 * 1024 * 1024;

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer(ANSWER_BYTES);
});
afterAll(() => hostile.close());

const api = (method: string, path: string, body?: unknown, key = dev.liveKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

/**
 * P9: a webhook tool's answer over 1 MiB was truncated and reported `success: true` with the first
 * mebibyte as its result. Now an answer over the cap is a failed call, RESPONSE_TOO_LARGE, and the
 * connection is closed at the cap; a webhook receiver's oversized answer is a failed attempt.
 */
describe('P9: a webhook tool answering more than its cap', () => {
  it('fails with RESPONSE_TOO_LARGE instead of answering the part that fit, and cuts the connection', async () => {
    const created = await api('POST', '/tools', {
      name: 'oversized',
      type: 'webhook',
      config: { url: hostile.toolUrl, method: 'POST' },
    });
    expect(created.status).toBe(201);
    const before = hostile.answers.length;
    const res = await api('POST', `/tools/${created.body.data.id}/test`, { arguments: {} });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      success: false,
      errorCode: 'RESPONSE_TOO_LARGE',
      error: 'Response too large: the tool answered more than 1048576 bytes',
    });
    expect(res.body.data.result).toBeUndefined();
    const rows = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select payload from events where type = 'tool.failed' and payload like ?`, [
        `%${created.body.data.id}%`,
      ]);
    expect(JSON.parse(rows[0].payload as string).data).toMatchObject({ errorCode: 'RESPONSE_TOO_LARGE' });
    const [end] = (await hostile.waitForAnswers(before + 1)).slice(before);
    expect(end.finished).toBe(false);
    expect(end.written).toBeLessThan(ANSWER_BYTES);
  });

  it('an answer within the cap is the whole result', async () => {
    const small = await startHostileServer(512 * 1024);
    try {
      const created = await api('POST', '/tools', {
        name: 'within-cap',
        type: 'webhook',
        config: { url: small.toolUrl, method: 'POST' },
      });
      const res = await api('POST', `/tools/${created.body.data.id}/test`, { arguments: {} });
      expect(res.body.data).toMatchObject({ success: true, statusCode: 200 });
      expect((res.body.data.result as { text: string }).text.length).toBeGreaterThanOrEqual(512 * 1024);
    } finally {
      await small.close();
    }
  });

  it("a webhook receiver's answer past its cap is a failed attempt that says so", async () => {
    const hook = await api(
      'POST',
      '/webhooks',
      { name: 'hook', url: hostile.toolUrl, events: ['tool.called'] },
      dev.testKey,
    );
    expect(hook.status).toBe(201);
    const res = await api('POST', `/webhooks/${hook.body.data.id}/test`, undefined, dev.testKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      delivered: false,
      error: 'Response too large: the receiver answered more than 65536 bytes',
    });
  });
});
