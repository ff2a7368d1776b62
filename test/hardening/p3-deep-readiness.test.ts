import { TEST_ADMIN_TOKEN } from '../support/env';
import { call, type TestApp, withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
withAppAndDeveloper((a) => {
  app = a;
});

/**
 * P3: `/readyz?deep=true` was public and started a Temporal workflow per call (100 calls, 25 in
 * flight → 42 × 503). The deep check now needs the admin token and runs once at a time, its answer
 * shared by the calls in flight and for a few seconds after; plain `/readyz` stays public and cheap.
 */
describe('P3: the deep readiness check', () => {
  it('needs the admin token; plain /readyz does not', async () => {
    const anonymous = await call(app.baseUrl, 'GET', '/readyz?deep=true');
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const wrong = await call(app.baseUrl, 'GET', '/readyz?deep=true', { token: 'not-the-admin-token' });
    expect(wrong.status).toBe(401);
    const plain = await call(app.baseUrl, 'GET', '/readyz');
    expect(plain.status).toBe(200);
    expect(plain.body.checks.worker).toBeUndefined();
  });

  it('100 calls, 25 at a time: every one ready, one worker round trip shared', async () => {
    const statuses: number[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 25 }, () =>
          call(app.baseUrl, 'GET', '/readyz?deep=true', { token: TEST_ADMIN_TOKEN }),
        ),
      );
      for (const a of answers) {
        statuses.push(a.status);
        expect(a.body.checks.worker).toBe('ok');
      }
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const pings = await app.ctx.temporal.workflow.count('WorkflowType = "systemPingWorkflow"');
    // one per cache period at most (the calls took well under a minute), not one per call
    expect(pings.count).toBeLessThan(15);
  });
});
