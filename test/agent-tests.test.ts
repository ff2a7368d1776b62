import { completeManifest } from './support/personas';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const CONSOLE = '/api/v1/developers';

const scripted = {
  name: 'order status',
  turns: [{ text: 'Where is my order A-1?', expect: [{ type: 'route', route: 'llm' }] }],
  mocks: { orders__lookup_order: { status: 'shipped' } },
  expectations: [{ type: 'replyContains', text: 'shipped' }],
};

describe('agent tests: scenarios', () => {
  let app: TestApp;
  let dev: Developer;
  let other: Developer;
  let personaId: string;
  const api = (method: string, path: string, body?: unknown, token = dev.token) =>
    call(app.baseUrl, method, CONSOLE + path, { token, body });

  beforeAll(async () => {
    app = await startTestApp();
    dev = await newDeveloper(app, 'tests');
    other = await newDeveloper(app, 'tests-other');
    const created = await api('POST', '/personas', { manifest: completeManifest('tests-ava') });
    personaId = created.body.persona.id;
  });
  afterAll(() => app.close());

  it('creates, lists, reads, replaces and deletes a scenario', async () => {
    const created = await api('POST', `/personas/${personaId}/tests`, scripted);
    expect(created.status).toBe(201);
    const scenario = created.body.scenario;
    expect(scenario).toMatchObject({ personaId, name: 'order status', mocks: scripted.mocks });
    expect(scenario.id).toMatch(/^tsc_/);
    expect((await api('GET', `/personas/${personaId}/tests`)).body.scenarios.map((s: any) => s.id)).toEqual([
      scenario.id,
    ]);
    const replaced = await api('PUT', `/personas/${personaId}/tests/${scenario.id}`, {
      name: 'simulated',
      simulatedCaller: { goal: 'Find out where order A-1 is', maxTurns: 3 },
      expectations: [{ type: 'judge', rubric: 'The agent tells the order status' }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.scenario).toMatchObject({ name: 'simulated', mocks: {} });
    expect(replaced.body.scenario.turns).toBeUndefined();
    expect((await api('GET', `/personas/${personaId}/tests/${scenario.id}`)).body.scenario.name).toBe(
      'simulated',
    );
    expect((await api('DELETE', `/personas/${personaId}/tests/${scenario.id}`)).body).toEqual({
      deleted: true,
      id: scenario.id,
    });
    expect((await api('GET', `/personas/${personaId}/tests/${scenario.id}`)).status).toBe(404);
  });

  it("answers 404 for another account's persona or scenario", async () => {
    const mine = (await api('POST', `/personas/${personaId}/tests`, scripted)).body.scenario;
    const theirs = (p: string, method = 'GET', body?: unknown) => api(method, p, body, other.token);
    expect((await theirs(`/personas/${personaId}/tests`)).status).toBe(404);
    expect((await theirs(`/personas/${personaId}/tests`, 'POST', scripted)).status).toBe(404);
    expect((await theirs(`/personas/${personaId}/tests/${mine.id}`)).status).toBe(404);
    expect((await theirs(`/personas/${personaId}/tests/${mine.id}`, 'PUT', scripted)).status).toBe(404);
    expect((await theirs(`/personas/${personaId}/tests/${mine.id}`, 'DELETE')).status).toBe(404);
    expect((await api('GET', `/personas/${personaId}/tests/${mine.id}`)).status).toBe(200);
  });

  it.each([
    ['no turns and no simulated caller', { name: 'x' }],
    ['both turns and a simulated caller', { ...scripted, simulatedCaller: { goal: 'g', maxTurns: 2 } }],
    ['maxTurns over 10', { name: 'x', simulatedCaller: { goal: 'g', maxTurns: 11 } }],
    ['an unknown expectation', { ...scripted, expectations: [{ type: 'sings' }] }],
    ['a judge on a turn', { name: 'x', turns: [{ text: 'hi', expect: [{ type: 'judge', rubric: 'r' }] }] }],
    ['an invalid regex', { ...scripted, expectations: [{ type: 'replyMatches', pattern: '(' }] }],
    ['a lookahead', { ...scripted, expectations: [{ type: 'replyMatches', pattern: 'a(?=b)' }] }],
    ['a backreference', { ...scripted, expectations: [{ type: 'replyMatches', pattern: '(a)\\1' }] }],
    [
      'a regex over 200 characters',
      { ...scripted, expectations: [{ type: 'replyMatches', pattern: 'a'.repeat(201) }] },
    ],
    ['an unknown field', { ...scripted, extra: 1 }],
    ['an empty name', { ...scripted, name: '  ' }],
  ])('refuses %s (400)', async (_what, body) => {
    const res = await api('POST', `/personas/${personaId}/tests`, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
  });

  it('names the pattern RE2 cannot run, and takes the polynomial ones it runs in linear time', async () => {
    const lookahead = await api('POST', `/personas/${personaId}/tests`, {
      ...scripted,
      expectations: [{ type: 'replyMatches', pattern: '(?<!x)a' }],
    });
    expect(lookahead.body.validationErrors).toEqual([
      expect.stringMatching(/^expectations\.0\.pattern: lookahead/),
    ]);
    const polynomial = ['a*a*c', '(a|aa)*c', 'a*a*a*c', '(a+)+$'].map((pattern) => ({
      type: 'replyMatches',
      pattern,
    }));
    const res = await api('POST', `/personas/${personaId}/tests`, { ...scripted, expectations: polynomial });
    expect(res.status).toBe(201);
  });
});
