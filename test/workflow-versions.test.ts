import { speakGraph } from './support/speak-workflow';
import { call, type Developer, newDeveloper, type TestApp, withAppAndDeveloper } from './support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
);

const api = (method: string, path: string, body?: unknown, key = dev.liveKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

async function created(text: string) {
  const res = await api('POST', '/workflows', {
    name: 'Greeting',
    trigger: { type: 'voice_command', config: { command: 'say hello' } },
    ...speakGraph(text),
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; version: number };
}

describe('workflow versions', () => {
  it('keeps every saved definition, newest first; an old one restored is a new version', async () => {
    const wf = await created('Hello.');
    expect((await api('PUT', `/workflows/${wf.id}`, speakGraph('Hi there.'))).body.data.version).toBe(2);
    expect((await api('PUT', `/workflows/${wf.id}`, { name: 'Hello again' })).body.data.version).toBe(3);

    const list = await api('GET', `/workflows/${wf.id}/versions`);
    expect(list.status).toBe(200);
    expect(list.body.pagination.total).toBe(3);
    const versions = list.body.data as {
      version: number;
      name: string;
      nodes: { config?: { text?: string } }[];
    }[];
    expect(versions.map((v) => [v.version, v.name, v.nodes[1].config?.text])).toEqual([
      [3, 'Hello again', 'Hi there.'],
      [2, 'Greeting', 'Hi there.'],
      [1, 'Greeting', 'Hello.'],
    ]);
    const first = list.body.data[2];
    expect(first).toMatchObject({ trigger: { type: 'voice_command', config: { command: 'say hello' } } });
    expect(typeof first.createdAt).toBe('string');

    const restored = await api('PUT', `/workflows/${wf.id}`, {
      name: first.name,
      trigger: first.trigger,
      nodes: first.nodes,
      edges: first.edges,
    });
    expect(restored.body.data).toMatchObject({ version: 4, name: 'Greeting' });
    const paged = await api('GET', `/workflows/${wf.id}/versions?limit=1&offset=1`);
    expect(paged.body.data.map((v: { version: number }) => v.version)).toEqual([3]);
  });

  it('concurrent updates: one saves each version number, the others are refused with 409, never 500', async () => {
    const wf = await created('Hello.');
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) => api('PUT', `/workflows/${wf.id}`, speakGraph(`Hello number ${i}.`))),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const saved = answers.filter((a) => a.status === 200).map((a) => a.body.data.version as number);
    expect(new Set(saved).size).toBe(saved.length);
    const refused = answers.find((a) => a.status === 409);
    if (refused) expect(refused.body.code).toBe('CONFLICT');
    const list = await api('GET', `/workflows/${wf.id}/versions`);
    const current = (await api('GET', `/workflows/${wf.id}`)).body.data;
    // the history ends with the definition that is live, and holds one row per version number
    expect(list.body.data[0]).toMatchObject({ version: current.version, nodes: current.nodes });
    expect(list.body.data.map((v: { version: number }) => v.version)).toEqual(
      Array.from({ length: current.version }, (_, i) => current.version - i),
    );
  });

  it("another account's workflow is a 404; a bad query is a 400 naming the field; deleted with the workflow", async () => {
    const wf = await created('Hello.');
    const other = await newDeveloper(app, 'other');
    expect((await api('GET', `/workflows/${wf.id}/versions`, undefined, other.liveKey)).status).toBe(404);
    const bad = await api('GET', `/workflows/${wf.id}/versions?limit=0&zzz=1`);
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join(' ')).toMatch(/limit/);
    expect((await api('DELETE', `/workflows/${wf.id}`)).status).toBe(200);
    const rows = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select count(*)::int as n from workflow_versions where workflow_id = ?', [wf.id]);
    expect(rows[0].n).toBe(0);
  });
});

describe('dry run of a draft graph', () => {
  it('runs the draft it is given, not the saved definition, and checks it the same way', async () => {
    const wf = await created('Saved words.');
    const draft = await api('POST', `/workflows/${wf.id}/test`, { ...speakGraph('Draft words.') });
    expect(draft.status).toBe(200);
    expect(draft.body.data.output.speech).toEqual(['Draft words.']);
    const saved = await api('POST', `/workflows/${wf.id}/test`, {});
    expect(saved.body.data.output.speech).toEqual(['Saved words.']);

    const half = await api('POST', `/workflows/${wf.id}/test`, { nodes: speakGraph('x').nodes });
    expect(half.status).toBe(400);
    expect(half.body.validationErrors.join(' ')).toMatch(/edges/);
    const broken = speakGraph('x');
    broken.edges.pop();
    const invalid = await api('POST', `/workflows/${wf.id}/test`, broken);
    expect(invalid.status).toBe(400);
    expect(invalid.body.validationErrors.join(' ')).toMatch(/nodes\[2\]/);
    expect((await api('GET', `/workflows/${wf.id}`)).body.data.version).toBe(1);
  });
});
