import { Client } from 'pg';
import WebSocket from 'ws';
import { startWorker } from '../../src/app/runtime';
import { type DatabaseProxy, quietCutConnectionLogs, startDatabaseProxy } from '../support/db-proxy';
import { TEST_ENV } from '../support/env';
import { createIsolatedDatabase } from '../support/isolated-db';
import { completeManifest } from '../support/personas';
import { eventually, type Receiver, startReceiver } from '../support/receiver';
import {
  type ApiResponse,
  call,
  type Developer,
  newDeveloper,
  startTestApp,
  type TestApp,
} from '../support/test-app';
import { openStream, refusedUpgrade, streamUrl } from '../support/voice-stream';

/**
 * Issue 26 item 7: a full PostgreSQL outage, not only killed backends. The API, its worker and the
 * worker's event dispatcher (its LISTEN connection too) reach the database only through a proxy that
 * cuts every connection and refuses new ones; the test reads the database directly.
 */
describe('a full PostgreSQL outage (every connection cut, new ones refused)', () => {
  let db: { url: string; drop(): Promise<void> };
  let proxy: DatabaseProxy;
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let receiver: Receiver;
  let dev: Developer;
  let personaId: string;

  beforeAll(async () => {
    quietCutConnectionLogs();
    db = await createIsolatedDatabase('dbout');
    proxy = await startDatabaseProxy(db.url);
    app = await startTestApp({ DATABASE_URL: proxy.url, TEMPORAL_TASK_QUEUE: `vp-dbout-${process.pid}` });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress());
    receiver = await startReceiver();
    dev = await newDeveloper(app, 'dbout');
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('outage-agent') },
    });
    personaId = persona.body.persona.id;
    const hook = await call(app.baseUrl, 'POST', '/api/v2/developers/webhooks', {
      token: dev.testKey,
      body: { name: 'outage', url: receiver.url, events: ['session.started'] },
    });
    expect(hook.status).toBe(201);
  });

  afterAll(async () => {
    try {
      await proxy?.restore().catch(() => undefined); // the app closes cleanly with its database back
      await worker?.stop();
      await app?.close();
    } finally {
      await receiver?.close();
      await proxy?.close();
      await db?.drop();
      jest.restoreAllMocks();
    }
  });

  const direct = async <T>(fn: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  const startSession = (i: number) =>
    call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: dev.testKey,
      body: { personaId, userId: `caller-${i}` },
    });
  const expectUnavailable = (res: ApiResponse) => {
    expect([res.status, res.body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  };

  it('answers 503 with Retry-After, writes nothing by halves, and recovers without a restart', async () => {
    expect((await startSession(0)).status).toBe(201);
    await receiver.waitFor(1, 30_000);

    // the outage begins inside a session start's transaction (the session row and its
    // session.started event), after both INSERTs and before the COMMIT reaches the server
    const tripped = proxy.refuseAt(/insert into "sessions"/, /commit/i);
    const cutOff = await startSession(1);
    expectUnavailable(cutOff);
    await tripped;

    // while it lasts: reads, creates and event triggers, with a key and with a console token
    const during = await Promise.all([
      call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.testKey }),
      call(app.baseUrl, 'GET', '/api/v1/developers/me', { token: dev.token }),
      call(app.baseUrl, 'POST', '/api/v2/developers/webhooks', {
        token: dev.testKey,
        body: { name: 'during', url: receiver.url, events: ['tool.called'] },
      }),
      call(app.baseUrl, 'POST', '/api/v2/developers/events/trigger', {
        token: dev.testKey,
        body: { type: 'session.started' },
      }),
      startSession(99),
    ]);
    for (const res of during) expectUnavailable(res);
    await new Promise((r) => setTimeout(r, 3_000)); // the dispatcher and the worker keep failing meanwhile

    // back, with the same API, worker and dispatcher
    await proxy.restore();
    expect((await startSession(100)).status).toBe(201); // at once: no dead pooled connection is handed out
    const reads = await call(app.baseUrl, 'GET', '/api/v2/developers/secrets', { token: dev.testKey });
    expect(reads.status).toBe(200);

    // nothing by halves: neither the cut-off session nor its event, nor anything refused outright,
    // was written; every session has its session.started event and every such event its session
    const { sessions, events, webhooks } = await direct(async (client) => ({
      sessions: (await client.query('select id, user_id from sessions')).rows,
      events: (
        await client.query(
          `select payload::jsonb->'data'->>'sessionId' as id from events where type = 'session.started'`,
        )
      ).rows.map((r) => r.id as string),
      webhooks: (await client.query('select name from webhooks')).rows.map((r) => r.name as string),
    }));
    expect(sessions.map((s) => s.user_id).sort()).toEqual(['caller-0', 'caller-100']);
    expect(events.sort()).toEqual(sessions.map((s) => s.id).sort());
    expect(webhooks).toEqual(['outage']);

    // every committed session.started is delivered, each once, by the dispatcher that lived through it
    await receiver.waitFor(2, 60_000);
    await new Promise((r) => setTimeout(r, 1_000));
    const delivered = receiver.requests.map((r) => JSON.parse(r.rawBody).data.sessionId as string);
    expect(delivered.sort()).toEqual(sessions.map((s) => s.id).sort());

    // and its LISTEN connection is back (new events wake it rather than its poll)
    await eventually(() =>
      direct(async (client) => {
        const { rows } = await client.query(
          `select 1 from pg_stat_activity where datname = current_database() and query = 'LISTEN vp_outbox'`,
        );
        return rows.length > 0;
      }),
    );
  }, 120_000);

  it('a voice stream in the outage: refused with 503 and Retry-After, or, cut once open, told why', async () => {
    const session = await startSession(300);
    expect(session.status).toBe(201);
    const sessionId = session.body.data.id as string;
    const clientToken = async () =>
      (
        await call(app.baseUrl, 'POST', `/api/v2/developers/sessions/${sessionId}/client-token`, {
          token: dev.testKey,
        })
      ).body.data.token as string;

    // the database is away before the upgrade: an HTTP 503 before any WebSocket data
    const token = await clientToken();
    await proxy.refuse();
    const refused = await refusedUpgrade(streamUrl(app.baseUrl, sessionId, token));
    await proxy.restore();
    expect([refused.status, refused.body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);

    // away between the upgrade and the stream's hold on the session: an error naming it, close 1013
    const tripped = proxy.refuseAt(null, /session-turn-claim/);
    const ws = new WebSocket(streamUrl(app.baseUrl, sessionId, await clientToken()));
    const messages: { type: string; code?: string }[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    await tripped;
    await proxy.restore();
    expect(messages).toEqual([expect.objectContaining({ type: 'error', code: 'SERVICE_UNAVAILABLE' })]);
    expect(closed).toEqual({ code: 1013, reason: 'SERVICE_UNAVAILABLE' });

    // and once it is back, the stream opens
    const client = await openStream(app.baseUrl, sessionId, { token: await clientToken() });
    client.close();
  }, 60_000);

  it('a sample event cut inside its transaction is a 503 and leaves no event behind', async () => {
    const count = () =>
      direct(
        async (client) => (await client.query('select count(*)::int as n from events')).rows[0].n as number,
      );
    // cut at its insert, at the read of its matching webhooks, at its commit: nothing is emitted
    const cuts: [RegExp, RegExp][] = [
      [/\bbegin\b/i, /insert into "events"/],
      [/insert into "events"/, /from events e/i],
      [/insert into "events"/, /commit/i],
    ];
    for (const [after, at] of cuts) {
      const before = await count();
      const tripped = proxy.refuseAt(after, at);
      const res = await call(app.baseUrl, 'POST', '/api/v2/developers/events/trigger', {
        token: dev.testKey,
        body: { type: 'session.started' },
      });
      await tripped;
      expectUnavailable(res);
      await proxy.restore();
      expect(await count()).toBe(before);
    }
  }, 60_000);
});
