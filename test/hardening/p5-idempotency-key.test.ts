import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { RENEW_CLAIM_EVERY_MS } from '../../src/idempotency/idempotency.service';
import { idempotentRequests } from '../../src/idempotency/idempotent-request';
import { housekeepingScheduleId } from '../../src/temporal/schedules';
import { taskQueuesFor } from '../../src/temporal/task-queues';
import { TEST_ENV } from '../support/env';
import { completeManifest } from '../support/personas';
import { eventually, type Receiver, startReceiver } from '../support/receiver';
import {
  type ApiResponse,
  call,
  type Developer,
  newDeveloper,
  type TestApp,
  withAppAndDeveloper,
} from '../support/test-app';

let app: TestApp;
let dev: Developer;
// many creates: plan and rate limits are tested elsewhere
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
  { plan: 'enterprise' },
);
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const v2 = (method: string, path: string, body: unknown, key?: string, token = dev.liveKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, {
    token,
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });

// disabled: the sessions below emit session.started, and no delivery is wanted here
const hookBody = (name = 'p5') => ({ name, url: receiver.url, events: ['session.started'], enabled: false });

async function count(table: string, where: string, params: unknown[]): Promise<number> {
  const rows = await app.ctx.orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>(`select count(*) as n from ${table} where ${where}`, params);
  return Number(rows[0].n);
}

const replayed = (r: ApiResponse) => r.headers.get('idempotent-replayed') === 'true';

/** The first answer of a key among concurrent ones: exactly one, never replayed; the rest replay it or are told to wait. */
function expectOneFirstAnswer(answers: ApiResponse[], status: number) {
  const first = answers.filter((a) => a.status === status && !replayed(a));
  expect(first).toHaveLength(1);
  for (const other of answers.filter((a) => a !== first[0])) {
    if (replayed(other)) {
      expect(other.status).toBe(status);
      expect(other.body).toEqual(first[0].body);
    } else {
      expect(other.status).toBe(409);
      expect(other.body.code).toBe('CONFLICT');
      expect(other.body.error).toMatch(/in progress/);
      expect(other.headers.get('retry-after')).toBe('1');
    }
  }
  return first[0];
}

/**
 * P5: five parallel POST /webhooks with one Idempotency-Key made five webhooks with five secrets.
 * Create routes now honour the key with Stripe's semantics (docs/api-contract.md "Idempotent requests").
 */
describe('P5: Idempotency-Key on POST /webhooks', () => {
  it('5 parallel keyed creates make one webhook and one secret', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => v2('POST', '/webhooks', hookBody('race'), key)),
    );
    const first = expectOneFirstAnswer(answers, 201);
    expect(first.body.data.secret).toMatch(/^whsec_/);
    expect(await count('webhooks', 'account_id = ? and name = ?', [dev.publisherId, 'race'])).toBe(1);
    const secrets = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.data.secret));
    expect(secrets.size).toBe(1);
  });

  it('a sequential retry replays the first answer and creates nothing', async () => {
    const key = randomUUID();
    const first = await v2('POST', '/webhooks', hookBody('replay'), key);
    expect(first.status).toBe(201);
    expect(replayed(first)).toBe(false);
    // the same body with its keys in another order is the same request
    const { enabled, events, url, name } = hookBody('replay');
    const again = await v2('POST', '/webhooks', { events, enabled, url, name }, key);
    expect(again.status).toBe(201);
    expect(replayed(again)).toBe(true);
    expect(again.body).toEqual(first.body);
    expect(await count('webhooks', 'account_id = ? and name = ?', [dev.publisherId, 'replay'])).toBe(1);
    // the stored answer holds the secret: it is encrypted at rest
    const rows = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select response_ciphertext from idempotency_keys where key = ?', [key]);
    expect(rows).toHaveLength(1);
    expect(rows[0].response_ciphertext).not.toContain(first.body.data.secret);
  });

  it('the same key with another body is a 409 and creates nothing', async () => {
    const key = randomUUID();
    expect((await v2('POST', '/webhooks', hookBody('one'), key)).status).toBe(201);
    const other = await v2('POST', '/webhooks', hookBody('two'), key);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('CONFLICT');
    expect(other.body.error).toMatch(/already used with another request/);
    expect(await count('webhooks', 'account_id = ? and name = ?', [dev.publisherId, 'two'])).toBe(0);
  });

  it('keys are per account and per environment', async () => {
    const key = randomUUID();
    const other = await newDeveloper(app, 'p5-other');
    const answers = [
      await v2('POST', '/webhooks', hookBody('scoped'), key),
      await v2('POST', '/webhooks', hookBody('scoped'), key, dev.testKey),
      await v2('POST', '/webhooks', hookBody('scoped'), key, other.liveKey),
    ];
    expect(answers.map((a) => [a.status, replayed(a)])).toEqual([
      [201, false],
      [201, false],
      [201, false],
    ]);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(3);
  });
});

describe('P5: what is and is not remembered', () => {
  it('a request that fails validation is not stored: the key stays free', async () => {
    const key = randomUUID();
    const invalid = await v2('POST', '/webhooks', { ...hookBody('invalid'), events: [] }, key);
    expect(invalid.status).toBe(400);
    const valid = await v2('POST', '/webhooks', hookBody('after-invalid'), key);
    expect(valid.status).toBe(201);
    expect(replayed(valid)).toBe(false);
  });

  it('a key that is not 1-255 printable characters is a 400 naming the header', async () => {
    for (const key of ['k'.repeat(256), 'a\tb']) {
      const res = await v2('POST', '/webhooks', hookBody('bad-key'), key);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.validationErrors[0]).toMatch(/^idempotency-key: /);
    }
    expect(await count('webhooks', 'account_id = ? and name = ?', [dev.publisherId, 'bad-key'])).toBe(0);
  });

  it('a 4xx of the handler is replayed; a 5xx or crash releases the key', async () => {
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('p5-draft') },
    });
    const body = { personaId: persona.body.persona.id, userId: 'p5' };
    const key = randomUUID();
    // a live key cannot start a session with a draft persona: 409, stored and replayed
    const refused = await v2('POST', '/sessions', body, key);
    expect(refused.status).toBe(409);
    const again = await v2('POST', '/sessions', body, key);
    expect([again.status, replayed(again)]).toEqual([409, true]);
    expect(again.body).toEqual(refused.body);

    const run = idempotentRequests(app.ctx);
    const req = { method: 'POST', originalUrl: '/x', query: {}, body: { a: 1 } } as unknown as Request;
    const res = { setHeader: () => undefined, locals: {} } as unknown as Response;
    const owner = { accountId: dev.publisherId, environment: 'live' as const };
    const crashKey = randomUUID();
    await expect(run(req, res, owner, crashKey, () => Promise.reject(new Error('crash')))).rejects.toThrow(
      'crash',
    );
    const ok = await run(req, res, owner, crashKey, async () => ({ status: 201, body: { ran: true } }));
    expect(ok).toEqual({ status: 201, body: { ran: true } });
  });

  it('an in-flight key abandoned by a dead process is taken over', async () => {
    const run = idempotentRequests(app.ctx);
    const req = { method: 'POST', originalUrl: '/y', query: {}, body: {} } as unknown as Request;
    const res = { setHeader: () => undefined, locals: {} } as unknown as Response;
    const owner = { accountId: dev.publisherId, environment: 'test' as const };
    const key = randomUUID();
    let release!: () => void;
    const stuck = run(
      req,
      res,
      owner,
      key,
      () => new Promise((resolve) => (release = () => resolve(undefined))),
    );
    await new Promise((r) => setTimeout(r, 100));
    await expect(run(req, res, owner, key, async () => ({ status: 201, body: {} }))).rejects.toThrow(
      /in progress/,
    );
    await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(`update idempotency_keys set updated_at = now() - interval '1 hour' where key = ?`, [key]);
    const taken = await run(req, res, owner, key, async () => ({ status: 201, body: { second: true } }));
    expect(taken).toEqual({ status: 201, body: { second: true } });
    release();
    await stuck;
  });
  it('a key whose request still runs is renewed every 5 s, so it is never taken over while it runs', async () => {
    const run = idempotentRequests(app.ctx);
    const req = { method: 'POST', originalUrl: '/z', query: {}, body: {} } as unknown as Request;
    const res = { setHeader: () => undefined, locals: {} } as unknown as Response;
    const owner = { accountId: dev.publisherId, environment: 'test' as const };
    const key = randomUUID();
    let release!: () => void;
    const running = run(
      req,
      res,
      owner,
      key,
      () => new Promise((resolve) => (release = () => resolve(undefined))),
    );
    const knex = app.ctx.orm.em.fork().getConnection();
    // as if it had not been marked for an hour: the next renewal marks it again
    await new Promise((r) => setTimeout(r, 100));
    await knex.execute(`update idempotency_keys set updated_at = now() - interval '1 hour' where key = ?`, [
      key,
    ]);
    const renewedWithin = Date.now() + RENEW_CLAIM_EVERY_MS + 2_000;
    for (;;) {
      const [row] = await knex.execute(
        `select updated_at > now() - interval '1 minute' as fresh from idempotency_keys where key = ?`,
        [key],
      );
      if (row.fresh) break;
      if (Date.now() > renewedWithin) throw new Error('the running request did not renew its key');
      await new Promise((r) => setTimeout(r, 200));
    }
    await expect(run(req, res, owner, key, async () => ({ status: 201, body: {} }))).rejects.toThrow(
      /in progress/,
    );
    release();
    await running;
  }, 20_000);
});

describe('P5: 24 hours', () => {
  it('an older key is used afresh, and the hourly housekeeping deletes it', async () => {
    const key = randomUUID();
    expect((await v2('POST', '/webhooks', hookBody('day-one'), key)).status).toBe(201);
    const db = app.ctx.orm.em.fork().getConnection();
    const age = (hours: number) =>
      db.execute(`update idempotency_keys set created_at = now() - make_interval(hours => ?) where key = ?`, [
        hours,
        key,
      ]);
    await age(25);
    const fresh = await v2('POST', '/webhooks', hookBody('day-two'), key);
    expect([fresh.status, replayed(fresh)]).toEqual([201, false]);
    await age(25);
    expect(await db.execute('select 1 from idempotency_keys where key = ?', [key])).toHaveLength(1);
    await app.ctx.temporal.schedule
      .getHandle(housekeepingScheduleId(taskQueuesFor(TEST_ENV.taskQueue()).background))
      .trigger();
    await eventually(
      async () => (await db.execute('select 1 from idempotency_keys where key = ?', [key])).length === 0,
    );
  });
});

describe('P5: other create routes', () => {
  it('POST /workflows/:id/execute (a Temporal workflow): 5 parallel keyed runs start one execution', async () => {
    const wf = await v2('POST', '/workflows', {
      name: 'p5',
      trigger: { type: 'manual', config: {} },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end' },
      ],
      edges: [{ sourceId: 'start', targetId: 'end' }],
    });
    expect(wf.status).toBe(201);
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        v2('POST', `/workflows/${wf.body.data.id}/execute`, { wait: false }, key),
      ),
    );
    const first = expectOneFirstAnswer(answers, 202);
    expect(first.body.data.id).toMatch(/^exec_/);
    expect(await count('workflow_executions', 'workflow_id = ?', [wf.body.data.id])).toBe(1);
  });

  it('POST /sessions: a retry replays the session and starts no second one', async () => {
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('p5-session') },
    });
    const body = { personaId: persona.body.persona.id, userId: 'p5-caller' };
    const key = randomUUID();
    const answers = await Promise.all([1, 2, 3].map(() => v2('POST', '/sessions', body, key, dev.testKey)));
    const first = expectOneFirstAnswer(answers, 201);
    const again = await v2('POST', '/sessions', body, key, dev.testKey);
    expect([again.status, replayed(again), again.body]).toEqual([201, true, first.body]);
    expect(await count('sessions', 'persona_id = ?', [persona.body.persona.id])).toBe(1);
  });

  it('OpenAPI declares the header on create routes only', async () => {
    const doc = (await call(app.baseUrl, 'GET', '/openapi.json')).body;
    const names = (op: { parameters?: { name: string }[] }) => (op.parameters ?? []).map((p) => p.name);
    for (const path of ['/webhooks', '/sessions', '/workflows/{id}/execute', '/mcp-servers', '/tools']) {
      expect(names(doc.paths[`/api/v2/developers${path}`].post)).toContain('Idempotency-Key');
    }
    expect(names(doc.paths['/api/v2/developers/webhooks'].get)).not.toContain('Idempotency-Key');
  });
});
