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
