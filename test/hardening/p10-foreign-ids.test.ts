import { storedSession } from '../support/sessions';
import { call, type Developer, newDeveloper, type TestApp, withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper((a, d) => {
  app = a;
  dev = d;
});

async function personaOf(owner: Developer): Promise<string> {
  const res = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: owner.token,
    body: { manifest: { identity: { name: 'P10' } } },
  });
  expect(res.status).toBe(201);
  return res.body.persona.id as string;
}

const hook = { name: 'p10', url: 'http://127.0.0.1:9/hook', events: ['session.started'] };

/**
 * P10 (webhooks): a webhook's persona filter took another account's persona id (201). Ids of other
 * resources given in a body must belong to the caller: another account's is a 404 and changes nothing.
 */
describe("P10: another account's persona as a webhook's filter", () => {
  it('is a 404 on create and on update; the caller’s own persona is taken', async () => {
    const other = await newDeveloper(app, 'p10-other');
    const theirs = await personaOf(other);
    const mine = await personaOf(dev);
    const v2 = (method: string, path: string, body?: unknown) =>
      call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.liveKey, body });

    const refused = await v2('POST', '/webhooks', { ...hook, personaId: theirs });
    expect([refused.status, refused.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await v2('GET', '/webhooks')).body.data).toEqual([]);

    const created = await v2('POST', '/webhooks', { ...hook, personaId: mine });
    expect([created.status, created.body.data.personaId]).toEqual([201, mine]);
    const id = created.body.data.id as string;
    const update = await v2('PUT', `/webhooks/${id}`, { personaId: theirs });
    expect(update.status).toBe(404);
    expect((await v2('GET', `/webhooks/${id}`)).body.data.personaId).toBe(mine);
  });
});

/**
 * P10 (sessions): a workflow execution and a tool test took any `sessionId` and carried it into the
 * caller's events. Now it must be one of the caller's sessions, in the key's environment: another
 * account's (or none) is a 404 that starts nothing.
 */
describe("P10: another account's session on an execution or a tool test", () => {
  it('is a 404 that runs nothing; the caller’s own session is carried', async () => {
    const other = await newDeveloper(app, 'p10-sessions');
    const theirs = await storedSession(app, other);
    const mine = await storedSession(app, dev);
    const sandboxed = await storedSession(app, dev, 'test');
    const v2 = (method: string, path: string, body?: unknown) =>
      call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.liveKey, body });

    const workflow = await v2('POST', '/workflows', {
      name: 'p10',
      trigger: { type: 'voice_command', config: { command: 'p10 check' } },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'say', type: 'speak', config: { text: 'done' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { sourceId: 'start', targetId: 'say' },
        { sourceId: 'say', targetId: 'end' },
      ],
    });
    expect(workflow.status).toBe(201);
    const run = (sessionId: string) =>
      v2('POST', `/workflows/${workflow.body.data.id}/execute`, { sessionId, wait: false });
    for (const foreign of [theirs, sandboxed, 'sess_missing']) {
      const refused = await run(foreign);
      expect([refused.status, refused.body.code]).toEqual([404, 'NOT_FOUND']);
    }
    const list = await v2('GET', `/workflows/${workflow.body.data.id}/executions`);
    expect(list.body.data).toEqual([]);
    const accepted = await run(mine);
    expect(accepted.status).toBe(202);
    expect(accepted.body.data.sessionId).toBe(mine);

    const tool = await v2('POST', '/tools', {
      name: 'p10_prompt',
      type: 'prompt',
      config: { prompt: 'Say hi {{input}}' },
    });
    expect(tool.status).toBe(201);
    const test = (sessionId: string) =>
      v2('POST', `/tools/${tool.body.data.id}/test`, { arguments: {}, sessionId });
    expect((await test(theirs)).status).toBe(404);
    expect((await test(mine)).status).toBe(200);
  });
});
