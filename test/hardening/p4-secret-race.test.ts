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

/**
 * P4: ten concurrent first `PUT /secrets/:name` gave nine 500s (a unique violation). Now one creates
 * it (201), the others replace its value (200), and one secret of that name is left.
 */
describe('P4: concurrent first writes of a secret', () => {
  it('one 201, the rest 200, never a 5xx; one secret left', async () => {
    const values = Array.from({ length: 10 }, (_, i) => `value-${i}-${'x'.repeat(20)}`);
    const answers = await Promise.all(
      values.map((value) =>
        call(app.baseUrl, 'PUT', '/api/v2/developers/secrets/RACE_KEY', {
          token: dev.liveKey,
          body: { value },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const list = await call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.liveKey });
    expect(list.body.data.map((s: { name: string }) => s.name)).toEqual(['RACE_KEY']);
    const rows = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select ciphertext, id from secrets where name = ? and account_id = ?', [
        'RACE_KEY',
        dev.publisherId,
      ]);
    expect(rows).toHaveLength(1);
  });
});
