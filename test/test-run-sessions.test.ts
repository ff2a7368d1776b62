import { completeManifest } from './support/personas';
import { eventually, type Receiver, startReceiver } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const CONSOLE = '/api/v1/developers';
const PLATFORM = '/api/v2/developers';
const today = () => new Date().toISOString().slice(0, 10);

/**
 * An agent-test run's session beside a customer's (a test-environment session, as a console test
 * call is): the run's is marked, left out of the log, the analytics and webhooks by default, and
 * shown when asked for.
 */
describe('test-run sessions apart from customers', () => {
  let app: TestApp;
  let dev: Developer;
  let receiver: Receiver;
  let personaId: string;
  let runId: string;
  let realSessionId: string;
  let hooks: { plain: string; optedIn: string };
  let talkedAfterRun: boolean;
  const console_ = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, CONSOLE + path, { token: dev.token, body });
  const platform = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, PLATFORM + path, { token: dev.testKey, body });

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
    dev = await newDeveloper(app, 'test-run-sessions');
    receiver = await startReceiver();
    const webhook = async (extra: Record<string, unknown>) => {
      const res = await platform('POST', '/webhooks', {
        name: 'sessions',
        url: receiver.url,
        events: ['session.started', 'session.ended'],
        ...extra,
      });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    hooks = { plain: await webhook({}), optedIn: await webhook({ includeTestRuns: true }) };
    const persona = await console_('POST', '/personas', { manifest: completeManifest('run-apart') });
    personaId = persona.body.persona.id;
    const scenario = await console_('POST', `/personas/${personaId}/tests`, {
      name: 'greets',
      turns: [{ text: 'Hello there' }],
    });
    expect(scenario.status).toBe(201);
    const run = await console_('POST', `/personas/${personaId}/test-runs?wait=true`, {});
    expect(run.status).toBe(200);
    runId = run.body.run.id;
    // an agent test is not the developer talking to their agent
    talkedAfterRun = (await console_('GET', '/getting-started')).body.steps.find(
      (s: { id: string }) => s.id === 'talk',
    ).done;
    const started = await platform('POST', '/sessions', { personaId, userId: 'caller-1' });
    expect(started.status).toBe(201);
    realSessionId = started.body.data.id;
    expect((await platform('POST', `/sessions/${realSessionId}/turns`, { text: 'Hello there' })).status).toBe(
      200,
    );
    expect((await platform('POST', `/sessions/${realSessionId}/end`)).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await app?.close();
  });

  it('the log lists the customer’s session; includeTestRuns=true shows the run’s, marked with its run', async () => {
    const plain = await platform('GET', '/sessions');
    expect(plain.status).toBe(200);
    expect(plain.body.data.map((s: { id: string }) => s.id)).toEqual([realSessionId]);
    expect(plain.body.data[0].testRunId).toBeNull();
    expect(plain.body.pagination.total).toBe(1);

    const all = await platform('GET', '/sessions?includeTestRuns=true');
    expect(all.body.data).toHaveLength(2);
    const runs = all.body.data.filter((s: { testRunId: string | null }) => s.testRunId !== null);
    expect(runs).toEqual([expect.objectContaining({ testRunId: runId, personaId })]);

    // the transcript search leaves the run out the same way
    const said = await platform('GET', '/sessions?q=hello%20there');
    expect(said.body.data.map((s: { id: string }) => s.id)).toEqual([realSessionId]);
    expect((await platform('GET', '/sessions?q=hello%20there&includeTestRuns=true')).body.data).toHaveLength(
      2,
    );

    const bad = await platform('GET', '/sessions?includeTestRuns=yes');
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join(' ')).toMatch(/includeTestRuns/);
  });

  it('the getting-started checklist ticks "Talk to it" for a session, not for a test run', async () => {
    expect(talkedAfterRun).toBe(false);
    const steps = (await console_('GET', '/getting-started')).body.steps as { id: string; done: boolean }[];
    expect(steps.find((s) => s.id === 'talk')?.done).toBe(true);
  });

  it('analytics count the customer only, unless includeTestRuns=true', async () => {
    const overview = await console_('GET', '/analytics/overview?environment=test');
    expect(overview.body.overview).toMatchObject({ uniqueUsers: 1, activePersonas: 1 });
    const overviewAll = await console_('GET', '/analytics/overview?environment=test&includeTestRuns=true');
    expect(overviewAll.body.overview).toMatchObject({ uniqueUsers: 2, activePersonas: 1 });

    const personas = await console_('GET', '/analytics/personas?environment=test');
    expect(personas.body.personas).toEqual([
      expect.objectContaining({ personaId, totalCalls: 1, uniqueUsers: 1 }),
    ]);
    const personasAll = await console_('GET', '/analytics/personas?environment=test&includeTestRuns=true');
    expect(personasAll.body.personas).toEqual([
      expect.objectContaining({ personaId, totalCalls: 2, uniqueUsers: 2 }),
    ]);

    for (const [query, users] of [
      ['environment=test', 1],
      ['environment=all', 1],
      ['environment=test&includeTestRuns=true', 2],
      ['environment=all&includeTestRuns=true', 2],
    ] as const) {
      const usage = await console_('GET', `/analytics/usage?${query}`);
      expect([
        query,
        usage.body.usage.find((d: { date: string }) => d.date === today())?.uniqueUsers,
      ]).toEqual([query, users]);
    }

    const bad = await console_('GET', '/analytics/overview?includeTestRuns=1');
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join(' ')).toMatch(/includeTestRuns/);
  });

  it('session webhooks get the run’s session events only when they opt in (includeTestRuns)', async () => {
    const logs = async (id: string) =>
      (await platform('GET', `/webhooks/${id}/logs`)).body.data as { eventType: string; status: string }[];
    // both webhooks see every event in the same fan-out: once the opted-in one has all four, the other has its share
    await eventually(async () => (await logs(hooks.optedIn)).length >= 4);
    const plain = await logs(hooks.plain);
    expect(plain.map((d) => d.eventType).sort()).toEqual(['session.ended', 'session.started']);
    expect(await logs(hooks.optedIn)).toHaveLength(4);
    const sent = receiver.requests.map((r) => JSON.parse(r.rawBody).data);
    const runStarted = sent.find((d) => d.testRunId === runId);
    expect(runStarted).toMatchObject({ testRunId: runId, personaId });

    expect((await platform('GET', `/webhooks/${hooks.plain}`)).body.data.includeTestRuns).toBe(false);
    expect((await platform('GET', `/webhooks/${hooks.optedIn}`)).body.data.includeTestRuns).toBe(true);
    const listed = (await platform('GET', '/webhooks')).body.data as {
      id: string;
      includeTestRuns: boolean;
    }[];
    expect(listed.find((w) => w.id === hooks.optedIn)?.includeTestRuns).toBe(true);
    const changed = await platform('PUT', `/webhooks/${hooks.optedIn}`, { includeTestRuns: false });
    expect(changed.status).toBe(200);
    expect(changed.body.data.includeTestRuns).toBe(false);
    const bad = await platform('PUT', `/webhooks/${hooks.optedIn}`, { includeTestRuns: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join(' ')).toMatch(/includeTestRuns/);
    expect((await platform('GET', `/webhooks/${hooks.optedIn}`)).body.data.includeTestRuns).toBe(false);
  });
});
