import { recentActivitiesForContext } from '../src/activity-log/activities.service';
import { call, type Developer, newDeveloper, type TestApp, withAppAndDeveloper } from './support/test-app';

let app: TestApp;
let dev: Developer;
// rate limits off: the suite writes more than a minute's write budget
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
);

const api = (method: string, path: string, body?: unknown, key = dev.testKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

async function log(body: Record<string, unknown>, key = dev.testKey) {
  const res = await api('POST', '/activities', body, key);
  expect(res.status).toBe(201);
  return res.body.data as Record<string, any>;
}

/** The envelopes of the events of `type` that mention `needle`, in creation order. */
async function eventsOf(type: string, needle: string) {
  const rows = await app.ctx.orm.em
    .fork()
    .getConnection()
    .execute(
      `select payload, persona_id, environment, account_id from events where type = ? and payload like ? order by created_at, id`,
      [type, `%${needle}%`],
    );
  return rows.map((r) => ({
    envelope: JSON.parse(r.payload as string),
    personaId: r.persona_id,
    environment: r.environment,
    accountId: r.account_id,
  }));
}

const expectInvalid = (res: { status: number; body: any }, field: string) => {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('VALIDATION_FAILED');
  expect(res.body.validationErrors.join('\n')).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}:`, 'm'));
};

async function keyWithScopes(scopes: string[], environment = 'test') {
  const res = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
    token: dev.token,
    body: { name: `scoped-${scopes.join('-')}`, environment, scopes },
  });
  expect(res.status).toBe(200);
  return res.body.key.fullKey as string;
}

describe('activity endpoints', () => {
  it('logs an activity: 201 with an act_ id, the fields, occurredAt defaulting to now', async () => {
    const before = Date.now();
    const a = await log({
      type: 'order.placed',
      payload: { orderId: 'A-1', amount: 42.5, items: [{ sku: 'x' }] },
      userId: 'user-1',
      sessionId: 'sess_abc123',
      personaId: 'persona_ava1',
    });
    expect(a).toEqual({
      id: expect.stringMatching(/^act_[A-Za-z0-9]{24}$/),
      type: 'order.placed',
      payload: { orderId: 'A-1', amount: 42.5, items: [{ sku: 'x' }] },
      userId: 'user-1',
      sessionId: 'sess_abc123',
      personaId: 'persona_ava1',
      occurredAt: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(Date.parse(a.occurredAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(a.occurredAt)).toBeLessThanOrEqual(Date.now() + 1000);

    const got = await api('GET', `/activities/${a.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ success: true, data: a });
  });

  it('keeps a given occurredAt (offsets normalised to UTC) and nulls for absent links', async () => {
    const a = await log({ type: 'note', payload: {}, occurredAt: '2026-01-02T03:04:05+02:00' });
    expect(a.occurredAt).toBe('2026-01-02T01:04:05.000Z');
    expect(a).toMatchObject({ userId: null, sessionId: null, personaId: null, payload: {} });
  });

  it('emits activity.created with its fields, in the same transaction, persona column set', async () => {
    const first = await log({
      type: 'ticket.opened',
      payload: { ticket: 7 },
      userId: 'user-evt',
      sessionId: 'sess_evt1',
      personaId: 'persona_evt1',
    });
    const second = await log({ type: 'ticket.closed', payload: { ticket: 7 }, userId: 'user-evt' });
    const events = await eventsOf('activity.created', 'user-evt');
    expect(events.map((e) => e.envelope.data.id)).toEqual([first.id, second.id]);
    expect(events[0].envelope).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'activity.created',
      publisherId: dev.publisherId,
      data: {
        id: first.id,
        type: 'ticket.opened',
        payload: { ticket: 7 },
        userId: 'user-evt',
        sessionId: 'sess_evt1',
        personaId: 'persona_evt1',
        occurredAt: first.occurredAt,
      },
    });
    expect(events[0]).toMatchObject({
      personaId: 'persona_evt1',
      environment: 'test',
      accountId: dev.publisherId,
    });
    expect(events[1].envelope.data).toEqual({
      id: second.id,
      type: 'ticket.closed',
      payload: { ticket: 7 },
      userId: 'user-evt',
      sessionId: null,
      personaId: null,
      occurredAt: second.occurredAt,
    });
    expect(events[1].personaId).toBeNull();
  });

  it('updates type, payload and occurredAt; refuses an empty or unknown change', async () => {
    const a = await log({ type: 'draft', payload: { v: 1 }, userId: 'user-upd' });
    await new Promise((r) => setTimeout(r, 5));
    const res = await api('PUT', `/activities/${a.id}`, {
      type: 'final',
      payload: { v: 2 },
      occurredAt: '2026-02-01T00:00:00Z',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: a.id,
      type: 'final',
      payload: { v: 2 },
      occurredAt: '2026-02-01T00:00:00.000Z',
      userId: 'user-upd',
      createdAt: a.createdAt,
    });
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThan(Date.parse(a.updatedAt));
    const only = await api('PUT', `/activities/${a.id}`, { payload: { v: 3 } });
    expect(only.body.data).toMatchObject({ type: 'final', payload: { v: 3 } });
    expect((await api('GET', `/activities/${a.id}`)).body.data.payload).toEqual({ v: 3 });

    expectInvalid(await api('PUT', `/activities/${a.id}`, {}), 'body');
    expectInvalid(await api('PUT', `/activities/${a.id}`, { userId: 'someone' }), 'userId');
    expectInvalid(await api('PUT', `/activities/${a.id}`, { type: 'Bad Type' }), 'type');
    expectInvalid(await api('PUT', `/activities/${a.id}`, { payload: [1] }), 'payload');
    expectInvalid(await api('PUT', `/activities/${a.id}`, { occurredAt: 'yesterday' }), 'occurredAt');
    expect((await api('PUT', '/activities/act_missing', { type: 'x' })).status).toBe(404);
  });

  it('deletes an activity: 200, then 404', async () => {
    const a = await log({ type: 'temp', payload: {} });
    const res = await api('DELETE', `/activities/${a.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: true, id: a.id } });
    expect((await api('GET', `/activities/${a.id}`)).status).toBe(404);
    expect((await api('DELETE', `/activities/${a.id}`)).status).toBe(404);
  });

  it('lists newest occurredAt first with filters and pagination', async () => {
    const u = `user-list-${Date.now()}`;
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        await log({
          type: i % 2 === 0 ? 'call.started' : 'call.ended',
          payload: { i },
          userId: u,
          sessionId: i < 2 ? 'sess_listA' : 'sess_listB',
          personaId: i === 4 ? 'persona_list1' : undefined,
          occurredAt: `2026-03-0${i + 1}T12:00:00Z`,
        }),
      );
    }
    const list = async (q: string) => {
      const res = await api('GET', `/activities?userId=${u}${q}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const all = await list('');
    expect(all.data.map((a: any) => a.payload.i)).toEqual([4, 3, 2, 1, 0]);
    expect(all.pagination).toEqual({ total: 5, limit: 50, offset: 0 });

    const page = await list('&limit=2&offset=1');
    expect(page.data.map((a: any) => a.payload.i)).toEqual([3, 2]);
    expect(page.pagination).toEqual({ total: 5, limit: 2, offset: 1 });

    expect((await list('&type=call.ended')).data.map((a: any) => a.payload.i)).toEqual([3, 1]);
    expect((await list('&sessionId=sess_listA')).data.map((a: any) => a.payload.i)).toEqual([1, 0]);
    expect((await list('&personaId=persona_list1')).data.map((a: any) => a.payload.i)).toEqual([4]);
    expect(
      (await list('&from=2026-03-02T12:00:00Z&to=2026-03-04T12:00:00Z')).data.map((a: any) => a.payload.i),
    ).toEqual([3, 2, 1]);
    expect((await list('&from=2026-03-04T00:00:00Z')).pagination.total).toBe(2);
    expect((await list('&to=2026-03-01T12:00:00Z')).data.map((a: any) => a.payload.i)).toEqual([0]);
  });
});

describe('validation', () => {
  it('refuses bad bodies on POST, naming the field', async () => {
    expectInvalid(await api('POST', '/activities', { payload: {} }), 'type');
    expectInvalid(await api('POST', '/activities', { type: 'x' }), 'payload');
    for (const type of ['Order', '1abc', 'a b', 'a/b', '', 'a'.repeat(65)]) {
      expectInvalid(await api('POST', '/activities', { type, payload: {} }), 'type');
    }
    for (const type of ['a', 'order.placed', 'x:y-z_1', `a${'b'.repeat(63)}`]) {
      expect((await api('POST', '/activities', { type, payload: {} })).status).toBe(201);
    }
    for (const payload of [[1], 'text', 3, null, true]) {
      expectInvalid(await api('POST', '/activities', { type: 'x', payload }), 'payload');
    }
    const big = await api('POST', '/activities', { type: 'x', payload: { blob: 'x'.repeat(33 * 1024) } });
    expectInvalid(big, 'payload');
    expect(big.body.validationErrors.join()).toMatch(/32 KiB/);
    // exactly 32 KiB as JSON is accepted: {"b":"…"} is 8 bytes plus the string
    expect(
      (await api('POST', '/activities', { type: 'x', payload: { b: 'x'.repeat(32 * 1024 - 8) } })).status,
    ).toBe(201);
    expectInvalid(
      await api('POST', '/activities', { type: 'x', payload: { b: 'x'.repeat(32 * 1024 - 7) } }),
      'payload',
    );
    expectInvalid(
      await api('POST', '/activities', { type: 'x', payload: {}, userId: 'u'.repeat(129) }),
      'userId',
    );
    expectInvalid(await api('POST', '/activities', { type: 'x', payload: {}, userId: '' }), 'userId');
    expectInvalid(
      await api('POST', '/activities', { type: 'x', payload: {}, sessionId: 'abc' }),
      'sessionId',
    );
    expectInvalid(
      await api('POST', '/activities', { type: 'x', payload: {}, personaId: 'sess_abc' }),
      'personaId',
    );
    for (const occurredAt of ['2026-13-01T00:00:00Z', 'yesterday', '2026-01-01', 1700000000]) {
      expectInvalid(await api('POST', '/activities', { type: 'x', payload: {}, occurredAt }), 'occurredAt');
    }
    expectInvalid(await api('POST', '/activities', { type: 'x', payload: {}, extra: 1 }), 'extra');
    expectInvalid(await api('POST', '/activities', { type: 'x', payload: { s: 'a\u0000b' } }), 'payload.s');
  });

  it('refuses bad list queries, naming the parameter', async () => {
    expectInvalid(await api('GET', '/activities?limit=0'), 'limit');
    expectInvalid(await api('GET', '/activities?limit=201'), 'limit');
    expectInvalid(await api('GET', '/activities?offset=-1'), 'offset');
    expectInvalid(await api('GET', '/activities?from=soon'), 'from');
    expectInvalid(await api('GET', '/activities?to=2026-02-30T00:00:00Z'), 'to');
    expectInvalid(await api('GET', '/activities?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z'), 'from');
    expectInvalid(await api('GET', '/activities?type=Bad'), 'type');
    expectInvalid(await api('GET', '/activities?sessionId=nope'), 'sessionId');
    expectInvalid(await api('GET', '/activities?personaId=nope'), 'personaId');
    expectInvalid(await api('GET', '/activities?color=red'), 'color');
  });

  it('refuses bad stats queries, naming the parameter', async () => {
    for (const metric of ['a..b', '.a', 'a.', 'a b', 'a.$x', 'a.b.c.d.e.f.g.h.i', 'x'.repeat(65), '']) {
      expectInvalid(await api('GET', `/activities/stats?metric=${encodeURIComponent(metric)}`), 'metric');
    }
    expectInvalid(await api('GET', '/activities/stats?groupBy=week'), 'groupBy');
    expectInvalid(await api('GET', '/activities/stats?from=last-week'), 'from');
    expectInvalid(await api('GET', '/activities/stats?to=2026-01-01'), 'to');
    expectInvalid(
      await api('GET', '/activities/stats?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z'),
      'from',
    );
    expectInvalid(await api('GET', '/activities/stats?limit=0'), 'limit');
    expectInvalid(await api('GET', '/activities/stats?limit=1001'), 'limit');
    expectInvalid(await api('GET', '/activities/stats?type=NOPE'), 'type');
    expectInvalid(await api('GET', '/activities/stats?sessionId=sess_a'), 'sessionId');
  });

  it('refuses an over-long id in the path', async () => {
    expectInvalid(await api('GET', `/activities/act_${'x'.repeat(80)}`), 'id');
  });
});

describe('scopes and ownership', () => {
  it('needs activities:read to read and activities:write to write', async () => {
    const writeOnly = await keyWithScopes(['activities:write']);
    const readOnly = await keyWithScopes(['activities:read']);
    const none = await keyWithScopes(['webhooks:read']);
    const a = await log({ type: 'scoped', payload: {} }, writeOnly);
    for (const [method, path] of [
      ['GET', '/activities'],
      ['GET', '/activities/stats'],
      ['GET', `/activities/${a.id}`],
    ]) {
      const res = await api(method, path, undefined, writeOnly);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect((await api(method, path, undefined, none)).status).toBe(403);
      expect((await api(method, path, undefined, readOnly)).status).toBe(200);
    }
    expect((await api('POST', '/activities', { type: 'x', payload: {} }, readOnly)).status).toBe(403);
    expect((await api('PUT', `/activities/${a.id}`, { type: 'y' }, readOnly)).status).toBe(403);
    expect((await api('DELETE', `/activities/${a.id}`, undefined, readOnly)).status).toBe(403);
    expect((await api('DELETE', `/activities/${a.id}`, undefined, writeOnly)).status).toBe(200);
  });

  it("never shows another account's or environment's activity (404)", async () => {
    const other = await newDeveloper(app, 'other');
    const a = await log({ type: 'private', payload: { secret: 1 }, userId: 'user-own' });
    for (const key of [other.testKey, other.liveKey, dev.liveKey]) {
      expect((await api('GET', `/activities/${a.id}`, undefined, key)).status).toBe(404);
      expect((await api('PUT', `/activities/${a.id}`, { type: 'stolen' }, key)).status).toBe(404);
      expect((await api('DELETE', `/activities/${a.id}`, undefined, key)).status).toBe(404);
      const list = await api('GET', '/activities?userId=user-own', undefined, key);
      expect(list.body.data).toEqual([]);
      const stats = await api('GET', '/activities/stats?userId=user-own', undefined, key);
      expect(stats.body.data.total).toBe(0);
    }
    expect((await api('GET', `/activities/${a.id}`)).body.data.type).toBe('private');
    // a pk_test_ key never sees pk_live_ activities either
    const live = await log({ type: 'live.only', payload: {}, userId: 'user-live' }, dev.liveKey);
    expect((await api('GET', `/activities/${live.id}`)).status).toBe(404);
    expect((await api('GET', '/activities?userId=user-live')).body.data).toEqual([]);
    expect((await api('GET', `/activities/${live.id}`, undefined, dev.liveKey)).status).toBe(200);
  });
});

describe('stats', () => {
  let key: string;
  const window = 'from=2025-03-01T00:00:00Z&to=2025-03-03T23:59:59.999Z';
  const stats = async (q: string) => {
    const res = await api('GET', `/activities/stats?${q}`, undefined, key);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    return res.body.data;
  };

  beforeAll(async () => {
    key = (await newDeveloper(app, 'stats')).liveKey;
    const rows = [
      ['order.placed', 'u1', '2025-03-01T08:00:00Z', { amount: 10, order: { total: 100 } }],
      ['order.placed', 'u1', '2025-03-01T23:59:59Z', { amount: 20.5, order: { total: 50 } }],
      ['order.placed', 'u2', '2025-03-02T00:00:00Z', { amount: 'n/a' }],
      ['call.ended', 'u2', '2025-03-02T10:00:00+05:00', { amount: 4, order: 'none' }],
      ['call.ended', undefined, '2025-03-03T00:00:00Z', {}],
      ['call.ended', 'u1', '2025-03-03T23:59:59Z', { amount: -1.25, order: { total: '7' } }],
      // outside the window
      ['order.placed', 'u1', '2025-02-28T23:59:59Z', { amount: 1000 }],
      ['order.placed', 'u1', '2025-03-04T00:00:00Z', { amount: 1000 }],
    ] as const;
    for (const [type, userId, occurredAt, payload] of rows) {
      await log({ type, userId, occurredAt, payload }, key);
    }
  });

  it('without groupBy: one group "all"; with a metric, sum/avg/min/max over numbers, the rest skipped', async () => {
    const s = await stats(window);
    expect(s).toEqual({
      total: 6,
      from: '2025-03-01T00:00:00.000Z',
      to: '2025-03-03T23:59:59.999Z',
      groupBy: null,
      metric: null,
      groupCount: 1,
      groups: [{ key: 'all', count: 6 }],
    });
    const m = await stats(`${window}&metric=amount`);
    const figures = { measured: 4, skipped: 2, sum: 33.25, avg: 8.3125, min: -1.25, max: 20.5 };
    expect(m).toEqual({
      total: 6,
      from: '2025-03-01T00:00:00.000Z',
      to: '2025-03-03T23:59:59.999Z',
      groupBy: null,
      metric: 'amount',
      ...figures,
      groupCount: 1,
      groups: [{ key: 'all', count: 6, ...figures }],
    });
  });

  it('groupBy=type, with a nested metric path', async () => {
    const s = await stats(`${window}&groupBy=type&metric=amount`);
    expect(s.groups).toEqual([
      { key: 'call.ended', count: 3, measured: 2, skipped: 1, sum: 2.75, avg: 1.375, min: -1.25, max: 4 },
      { key: 'order.placed', count: 3, measured: 2, skipped: 1, sum: 30.5, avg: 15.25, min: 10, max: 20.5 },
    ]);
    expect(s.groupCount).toBe(2);
    const nested = await stats(`${window}&groupBy=type&metric=order.total`);
    // order.total: 100 and 50 are numbers; "7" (a string), "none".total and missing values are skipped
    expect(nested).toMatchObject({ total: 6, measured: 2, skipped: 4, sum: 150, avg: 75, min: 50, max: 100 });
    expect(nested.groups).toEqual([
      { key: 'call.ended', count: 3, measured: 0, skipped: 3, sum: null, avg: null, min: null, max: null },
      { key: 'order.placed', count: 3, measured: 2, skipped: 1, sum: 150, avg: 75, min: 50, max: 100 },
    ]);
  });

  it('groupBy=day: UTC days, chronological', async () => {
    const s = await stats(`${window}&groupBy=day&metric=amount`);
    expect(s.groups).toEqual([
      { key: '2025-03-01', count: 2, measured: 2, skipped: 0, sum: 30.5, avg: 15.25, min: 10, max: 20.5 },
      // 10:00+05:00 is 05:00 UTC on 2025-03-02
      { key: '2025-03-02', count: 2, measured: 1, skipped: 1, sum: 4, avg: 4, min: 4, max: 4 },
      {
        key: '2025-03-03',
        count: 2,
        measured: 1,
        skipped: 1,
        sum: -1.25,
        avg: -1.25,
        min: -1.25,
        max: -1.25,
      },
    ]);
  });

  it('groupBy=user: by count, activities without a user under key null (last among equals)', async () => {
    const s = await stats(`${window}&groupBy=user`);
    expect(s.groups).toEqual([
      { key: 'u1', count: 3 },
      { key: 'u2', count: 2 },
      { key: null, count: 1 },
    ]);
    expect(s.total).toBe(6);
  });

  it('filters by type and userId, narrows the window, caps the groups', async () => {
    expect((await stats(`${window}&type=call.ended`)).total).toBe(3);
    const u1 = await stats(`${window}&userId=u1&groupBy=type&metric=amount`);
    expect(u1.groups).toEqual([
      { key: 'order.placed', count: 2, measured: 2, skipped: 0, sum: 30.5, avg: 15.25, min: 10, max: 20.5 },
      {
        key: 'call.ended',
        count: 1,
        measured: 1,
        skipped: 0,
        sum: -1.25,
        avg: -1.25,
        min: -1.25,
        max: -1.25,
      },
    ]);
    expect((await stats('from=2025-03-02T00:00:00Z&to=2025-03-02T23:59:59Z')).total).toBe(2);
    // both ends inclusive
    expect((await stats('from=2025-02-28T23:59:59Z&to=2025-03-04T00:00:00Z')).total).toBe(8);
    const capped = await stats(`${window}&groupBy=day&limit=2`);
    expect(capped.groups.map((g: any) => g.key)).toEqual(['2025-03-01', '2025-03-02']);
    expect(capped).toMatchObject({ total: 6, groupCount: 3 });
  });

  it('keeps the daily counts right through updates and deletes (whole days come from the rollup)', async () => {
    const own = (await newDeveloper(app, 'rollup')).liveKey;
    const q = 'from=2025-05-01T00:00:00Z&to=2025-05-09T00:00:00Z&groupBy=type';
    const byType = async () =>
      (await api('GET', `/activities/stats?${q}`, undefined, own)).body.data.groups as {
        key: string;
        count: number;
      }[];
    const a = await log({ type: 'alpha', payload: {}, occurredAt: '2025-05-03T10:00:00Z' }, own);
    const b = await log({ type: 'alpha', payload: {}, occurredAt: '2025-05-04T10:00:00Z' }, own);
    await log({ type: 'beta', payload: {}, occurredAt: '2025-05-09T00:00:00Z' }, own); // the edge instant
    expect(await byType()).toEqual([
      { key: 'alpha', count: 2 },
      { key: 'beta', count: 1 },
    ]);
    await api('PUT', `/activities/${a.id}`, { type: 'beta' }, own);
    await api('PUT', `/activities/${b.id}`, { occurredAt: '2025-06-01T00:00:00Z' }, own);
    expect(await byType()).toEqual([{ key: 'beta', count: 2 }]);
    await api('DELETE', `/activities/${a.id}`, undefined, own);
    expect(await byType()).toEqual([{ key: 'beta', count: 1 }]);
    const days = (await api('GET', `/activities/stats?${q.replace('type', 'day')}`, undefined, own)).body
      .data;
    expect(days.groups).toEqual([{ key: '2025-05-09', count: 1 }]);
  });

  it('answers metric stats over whole days from the metric rollup exactly as from the rows, through updates and deletes', async () => {
    const own = (await newDeveloper(app, 'metrics')).liveKey;
    const read = async (q: string) => (await api('GET', `/activities/stats?${q}`, undefined, own)).body.data;
    // whole days (May 2 to 5) from the rollups, edge days (May 1 and 6) from the rows; the same
    // questions over a window without a whole day come only from the rows
    const wide = 'from=2025-05-01T12:00:00Z&to=2025-05-06T12:00:00Z';
    const rows = [
      ['sale', '2025-05-01T13:00:00Z', { amount: 5, deep: { a: { b: { c: 1 } } } }],
      ['sale', '2025-05-02T10:00:00Z', { amount: 10, order: { total: 100 }, deep: { a: { b: { c: 2 } } } }],
      ['sale', '2025-05-02T11:00:00Z', { amount: 'n/a', order: { total: 40 } }],
      ['sale', '2025-05-03T10:00:00Z', { amount: 2.5, list: [7] }],
      ['refund', '2025-05-04T10:00:00Z', { amount: -3, order: { total: 60 } }],
      ['refund', '2025-05-06T10:00:00Z', { amount: 1 }],
      ['sale', '2025-05-06T13:00:00Z', { amount: 1000 }], // after the window
    ] as const;
    const ids: string[] = [];
    for (const [type, occurredAt, payload] of rows)
      ids.push((await log({ type, occurredAt, payload }, own)).id);

    const expectMetric = async (
      metric: string,
      groupBy: string,
      groups: Record<
        string,
        { count: number; measured: number; sum: number | null; min: number | null; max: number | null }
      >,
    ) => {
      const data = await read(`${wide}&metric=${metric}&groupBy=${groupBy}&limit=100`);
      const got = Object.fromEntries(
        data.groups.map((g: Record<string, number | null>) => [
          g.key,
          { count: g.count, measured: g.measured, sum: g.sum, min: g.min, max: g.max },
        ]),
      );
      expect(got).toEqual(groups);
    };
    await expectMetric('amount', 'type', {
      sale: { count: 4, measured: 3, sum: 17.5, min: 2.5, max: 10 },
      refund: { count: 2, measured: 2, sum: -2, min: -3, max: 1 },
    });
    await expectMetric('order.total', 'day', {
      '2025-05-01': { count: 1, measured: 0, sum: null, min: null, max: null },
      '2025-05-02': { count: 2, measured: 2, sum: 140, min: 40, max: 100 },
      '2025-05-03': { count: 1, measured: 0, sum: null, min: null, max: null },
      '2025-05-04': { count: 1, measured: 1, sum: 60, min: 60, max: 60 },
      '2025-05-06': { count: 1, measured: 0, sum: null, min: null, max: null },
    });
    // deeper than the rollup keeps, and through an array: from the rows, same rules
    const deep = await read(`${wide}&metric=deep.a.b.c`);
    expect(deep).toMatchObject({ total: 6, measured: 2, sum: 3, min: 1, max: 2 });
    const listed = await read(`${wide}&metric=list.0`);
    expect(listed).toMatchObject({ total: 6, measured: 1, sum: 7 });

    // a delete of the maximum and an update of a value: the touched days are read from the rows again
    await api('DELETE', `/activities/${ids[1]}`, undefined, own);
    await api('PUT', `/activities/${ids[3]}`, { payload: { amount: 4 } }, own);
    await expectMetric('amount', 'type', {
      sale: { count: 3, measured: 2, sum: 9, min: 4, max: 5 },
      refund: { count: 2, measured: 2, sum: -2, min: -3, max: 1 },
    });
    const all = await read(`${wide}&metric=amount`);
    expect(all).toMatchObject({ total: 5, measured: 4, skipped: 1, sum: 7, min: -3, max: 5, avg: 1.75 });
    // the rollup itself: counts and sums follow the changes, the touched path is marked stale
    const [rollup] = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select sum(measured)::int as measured, sum(sum)::float as sum, bool_or(stale) as stale
           from activity_daily_metrics
          where account_id = (select account_id from activities where id = ?) and path = '{amount}'
            and day between '2025-05-02' and '2025-05-05'`,
        [ids[0]],
      );
    expect(rollup).toEqual({ measured: 2, sum: 1, stale: true });
  });

  it('counts by user from whole weeks, whole days and the edge rows, exactly, through updates and deletes', async () => {
    const own = (await newDeveloper(app, 'users')).liveKey;
    const read = async (q: string) => (await api('GET', `/activities/stats?${q}`, undefined, own)).body.data;
    // 2025-06-04 (Wed) 12:00 to 2025-06-25 (Wed) 12:00: edge rows on Jun 4 and 25, whole days Jun 5-8
    // and Jun 23-24 from the daily rollup, the whole weeks of Jun 9 and Jun 16 from the weekly one
    const window = 'from=2025-06-04T12:00:00Z&to=2025-06-25T12:00:00Z';
    const at = [
      ['u1', '2025-06-04T11:00:00Z'], // before the window
      ['u1', '2025-06-04T13:00:00Z'],
      ['u2', '2025-06-06T10:00:00Z'],
      ['u1', '2025-06-10T10:00:00Z'],
      ['u1', '2025-06-15T23:59:59Z'],
      [undefined, '2025-06-18T10:00:00Z'],
      ['u2', '2025-06-24T10:00:00Z'],
      ['u2', '2025-06-25T12:00:00Z'], // the edge instant, inside
      ['u3', '2025-06-25T12:00:01Z'], // after the window
    ] as const;
    const ids: string[] = [];
    for (const [userId, occurredAt] of at) {
      ids.push((await log({ type: 'visit', payload: {}, userId, occurredAt }, own)).id);
    }
    expect((await read(`${window}&groupBy=user`)).groups).toEqual([
      { key: 'u1', count: 3 },
      { key: 'u2', count: 3 },
      { key: null, count: 1 },
    ]);
    expect(await read(`${window}&userId=u1`)).toMatchObject({ total: 3, groups: [{ key: 'all', count: 3 }] });

    // moves and deletes keep the rollups exact: u1's week-of-Jun-9 activity moves to Jun 24, one of u2's goes
    await api('PUT', `/activities/${ids[3]}`, { occurredAt: '2025-06-24T09:00:00Z' }, own);
    await api('DELETE', `/activities/${ids[2]}`, undefined, own);
    await api('PUT', `/activities/${ids[5]}`, { occurredAt: '2025-07-01T00:00:00Z' }, own);
    expect((await read(`${window}&groupBy=user`)).groups).toEqual([
      { key: 'u1', count: 3 },
      { key: 'u2', count: 2 },
    ]);
    expect((await read(`${window}&userId=u2&groupBy=user`)).groups).toEqual([{ key: 'u2', count: 2 }]);
    // the weekly rollup agrees with the rows
    const [week] = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select sum(count)::int as n from activity_user_weeks
          where account_id = (select account_id from activities where id = ?) and week = '2025-06-09'`,
        [ids[0]],
      );
    expect(week.n).toBe(1);
  });

  it('answers metric stats by user from whole weeks, whole days and the edge rows, exactly, through updates and deletes', async () => {
    const own = (await newDeveloper(app, 'user-metrics')).liveKey;
    const read = async (q: string) => (await api('GET', `/activities/stats?${q}`, undefined, own)).body.data;
    // 2025-06-04 (Wed) 12:00 to 2025-06-25 (Wed) 12:00: edge rows on Jun 4 and 25, whole days Jun 5-8
    // and Jun 23-24 from the daily user metric rollup, the weeks of Jun 9 and Jun 16 from the weekly one
    const window = 'from=2025-06-04T12:00:00Z&to=2025-06-25T12:00:00Z';
    const at = [
      ['u1', '2025-06-04T11:00:00Z', { amount: 1000 }], // before the window
      ['u1', '2025-06-04T13:00:00Z', { amount: 5 }],
      ['u2', '2025-06-06T10:00:00Z', { amount: 10, order: { total: 100 } }],
      ['u2', '2025-06-06T11:00:00Z', { amount: 'n/a' }],
      ['u1', '2025-06-10T10:00:00Z', { amount: 2.5, order: { total: 40 } }],
      ['u3', '2025-06-12T10:00:00Z', {}],
      ['u1', '2025-06-15T23:59:59Z', { amount: -3 }],
      [undefined, '2025-06-18T10:00:00Z', { amount: 7 }],
      ['u2', '2025-06-24T10:00:00Z', { amount: 20 }],
      ['u2', '2025-06-25T12:00:00Z', { amount: 1 }], // the edge instant, inside
      ['u3', '2025-06-25T12:00:01Z', { amount: 1000 }], // after the window
    ] as const;
    const ids: string[] = [];
    for (const [userId, occurredAt, payload] of at) {
      ids.push((await log({ type: 'sale', payload, userId, occurredAt }, own)).id);
    }
    type Figure = number | null;
    const figures = (count: number, measured: number, sum: Figure, min: Figure, max: Figure) => ({
      count,
      measured,
      skipped: count - measured,
      sum,
      min,
      max,
    });
    // the same figures over all groups, next to `total`
    const totals = (total: number, measured: number, sum: Figure, min: Figure, max: Figure) => {
      const { count: _count, ...rest } = figures(total, measured, sum, min, max);
      return { total, ...rest };
    };
    const byUser = async (q: string) =>
      ((await read(`${window}&${q}`)).groups as Record<string, unknown>[]).map(({ avg: _avg, ...g }) => g);

    expect(await byUser('groupBy=user&metric=amount')).toEqual([
      { key: 'u2', ...figures(4, 3, 31, 1, 20) },
      { key: 'u1', ...figures(3, 3, 4.5, -3, 5) },
      { key: 'u3', ...figures(1, 0, null, null, null) },
      { key: null, ...figures(1, 1, 7, 7, 7) },
    ]);
    expect(await byUser('groupBy=user&metric=order.total')).toEqual([
      { key: 'u2', ...figures(4, 1, 100, 100, 100) },
      { key: 'u1', ...figures(3, 1, 40, 40, 40) },
      { key: 'u3', ...figures(1, 0, null, null, null) },
      { key: null, ...figures(1, 0, null, null, null) },
    ]);
    const all = await read(`${window}&groupBy=user&metric=amount`);
    expect(all).toMatchObject({ groupCount: 4, ...totals(9, 7, 42.5, -3, 20) });
    expect(all.groups[0].avg).toBeCloseTo(31 / 3, 12);
    expect(await read(`${window}&userId=u2&metric=amount`)).toMatchObject({
      ...totals(4, 3, 31, 1, 20),
      groups: [{ key: 'all', ...figures(4, 3, 31, 1, 20) }],
    });
    expect(await byUser('userId=u1&groupBy=user&metric=amount')).toEqual([
      { key: 'u1', ...figures(3, 3, 4.5, -3, 5) },
    ]);

    // an update in a whole week (u1's 2.5 becomes 50) and a delete of a whole day's maximum (u2's 20):
    // the touched rollup rows are stale, and those users' windows are read from the rows again
    await api('PUT', `/activities/${ids[4]}`, { payload: { amount: 50 } }, own);
    await api('DELETE', `/activities/${ids[8]}`, undefined, own);
    expect(await byUser('groupBy=user&metric=amount')).toEqual([
      { key: 'u1', ...figures(3, 3, 52, -3, 50) },
      { key: 'u2', ...figures(3, 2, 11, 1, 10) },
      { key: 'u3', ...figures(1, 0, null, null, null) },
      { key: null, ...figures(1, 1, 7, 7, 7) },
    ]);
    expect(await byUser('groupBy=user&metric=order.total')).toEqual([
      { key: 'u1', ...figures(3, 0, null, null, null) },
      { key: 'u2', ...figures(3, 1, 100, 100, 100) },
      { key: 'u3', ...figures(1, 0, null, null, null) },
      { key: null, ...figures(1, 0, null, null, null) },
    ]);
    expect(await read(`${window}&userId=u2&metric=amount`)).toMatchObject(totals(3, 2, 11, 1, 10));
    expect(await byUser('userId=u1&groupBy=user&metric=amount')).toEqual([
      { key: 'u1', ...figures(3, 3, 52, -3, 50) },
    ]);

    // the rollups themselves: counts and sums follow the changes, the touched rows are stale
    const rollup = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select 'week' as unit, week::text as at, user_key, measured, sum::float as sum, min::float as min, max::float as max, stale
           from activity_user_week_metrics
          where account_id = (select account_id from activities where id = ?) and path = '{amount}'
            and week between '2025-06-09' and '2025-06-16'
         union all
         select 'day', day::text, user_key, measured, sum::float, min::float, max::float, stale
           from activity_user_day_metrics
          where account_id = (select account_id from activities where id = ?) and path = '{amount}'
            and day in ('2025-06-06', '2025-06-24')
          order by 1 desc, 2, 3`,
        [ids[0], ids[0]],
      );
    expect(rollup).toEqual([
      { unit: 'week', at: '2025-06-09', user_key: 'u1', measured: 2, sum: 47, min: -3, max: 50, stale: true },
      { unit: 'week', at: '2025-06-16', user_key: '', measured: 1, sum: 7, min: 7, max: 7, stale: false },
      { unit: 'day', at: '2025-06-06', user_key: 'u2', measured: 1, sum: 10, min: 10, max: 10, stale: false },
      { unit: 'day', at: '2025-06-24', user_key: 'u2', measured: 0, sum: 0, min: 20, max: 20, stale: true },
    ]);
  });

  it('defaults to the last 30 days; an empty window has one empty "all" group, or no groups', async () => {
    const s = await stats('');
    expect(s.total).toBe(0);
    expect(s.groups).toEqual([{ key: 'all', count: 0 }]);
    expect(Date.parse(s.to) - Date.parse(s.from)).toBe(30 * 24 * 3600 * 1000);
    expect(Math.abs(Date.parse(s.to) - Date.now())).toBeLessThan(60_000);
    const m = await stats('metric=amount');
    expect(m).toMatchObject({
      total: 0,
      measured: 0,
      skipped: 0,
      sum: null,
      avg: null,
      min: null,
      max: null,
    });
    expect((await stats('groupBy=type')).groups).toEqual([]);

    await log(
      { type: 'recent', payload: { amount: 3 }, occurredAt: new Date(Date.now() - 86_400_000).toISOString() },
      key,
    );
    await log(
      {
        type: 'older',
        payload: { amount: 3 },
        occurredAt: new Date(Date.now() - 31 * 86_400_000).toISOString(),
      },
      key,
    );
    expect((await stats('groupBy=type')).groups).toEqual([{ key: 'recent', count: 1 }]);
  });
});

describe('recentActivitiesForContext', () => {
  it("returns a user's 20 newest activities of that persona or none, in this account and environment", async () => {
    const ctxDev = await newDeveloper(app, 'context');
    const owner = { accountId: ctxDev.publisherId, environment: 'test' as const };
    const base = Date.parse('2026-06-01T00:00:00Z');
    const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
    // 12 of persona A, 12 without a persona, interleaved; 5 of persona B; other user; live environment
    for (let i = 0; i < 24; i++) {
      await log(
        {
          type: 'turn',
          payload: { i },
          userId: 'caller-1',
          personaId: i % 2 === 0 ? 'persona_A' : undefined,
          sessionId: 'sess_ctx1',
          occurredAt: at(i * 10),
        },
        ctxDev.testKey,
      );
    }
    for (let i = 0; i < 5; i++) {
      await log(
        {
          type: 'turn',
          payload: { b: i },
          userId: 'caller-1',
          personaId: 'persona_B',
          occurredAt: at(1000 + i),
        },
        ctxDev.testKey,
      );
    }
    await log(
      { type: 'turn', payload: { other: true }, userId: 'caller-2', occurredAt: at(2000) },
      ctxDev.testKey,
    );
    await log(
      { type: 'turn', payload: { live: true }, userId: 'caller-1', occurredAt: at(3000) },
      ctxDev.liveKey,
    );

    const em = app.ctx.orm.em.fork();
    const recent = await recentActivitiesForContext(em, owner, 'caller-1', 'persona_A');
    expect(recent).toHaveLength(20);
    expect(recent.map((a) => a.payload.i)).toEqual(Array.from({ length: 20 }, (_, k) => 23 - k));
    expect(recent[0]).toEqual({
      id: expect.stringMatching(/^act_/),
      type: 'turn',
      payload: { i: 23 },
      occurredAt: at(230),
      personaId: null,
      sessionId: 'sess_ctx1',
    });
    expect(recent[1]).toMatchObject({ payload: { i: 22 }, personaId: 'persona_A', occurredAt: at(220) });

    const noPersona = await recentActivitiesForContext(em, owner, 'caller-1', null, 5);
    expect(noPersona.map((a) => a.payload.i)).toEqual([23, 21, 19, 17, 15]);
    expect(noPersona.every((a) => a.personaId === null)).toBe(true);

    const personaB = await recentActivitiesForContext(em, owner, 'caller-1', 'persona_B', 7);
    expect(personaB.map((a) => a.payload)).toEqual([
      { b: 4 },
      { b: 3 },
      { b: 2 },
      { b: 1 },
      { b: 0 },
      { i: 23 },
      { i: 21 },
    ]);
    const live = await recentActivitiesForContext(em, { ...owner, environment: 'live' }, 'caller-1', null);
    expect(live.map((a) => a.payload)).toEqual([{ live: true }]);
    expect(await recentActivitiesForContext(em, owner, 'nobody', null)).toEqual([]);
    const otherAccount = await recentActivitiesForContext(
      em,
      { accountId: dev.publisherId, environment: 'test' },
      'caller-1',
      'persona_A',
    );
    expect(otherAccount).toEqual([]);
  });
});
