import { keepMp3 } from '../src/sessions/stream/recordings';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const CONSOLE = '/api/v1/developers';
const PLATFORM = '/api/v2/developers';
/** Not MP3, but bytes the recordings table keeps and answers as they are. */
const SOME_AUDIO = new Uint8Array([0xff, 0xfb, 0x90, 0x00, 1, 2, 3, 4]);

/** A session's data goes with it (DELETE /sessions/:id), recordings go with their persona, and bodies are UTF-8. */
describe('session data lifecycle', () => {
  let app: TestApp;
  let dev: Developer;
  let other: Developer;
  const platform = (method: string, path: string, body?: unknown, key = dev.testKey) =>
    call(app.baseUrl, method, PLATFORM + path, { token: key, body });
  const console_ = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, CONSOLE + path, { token: dev.token, body });
  const count = async (table: string, sessionId: string) =>
    Number(
      (
        await app.ctx.orm.em
          .getConnection()
          .execute(`select count(*) as n from ${table} where session_id = ?`, [sessionId])
      )[0].n,
    );
  const newPersona = async (slug: string) =>
    (await console_('POST', '/personas', { manifest: completeManifest(slug) })).body.persona.id as string;
  /** A session with one turn and the caller's and the agent's audio of it kept. */
  const recordedSession = async (personaId: string, end = true) => {
    const started = await platform('POST', '/sessions', { personaId, userId: 'caller-1', recording: true });
    expect(started.status).toBe(201);
    const id = started.body.data.id as string;
    expect((await platform('POST', `/sessions/${id}/turns`, { text: 'What are your hours?' })).status).toBe(
      200,
    );
    for (const side of ['caller', 'agent'] as const) await keepMp3(app.ctx, id, 1, side, SOME_AUDIO, 500);
    if (end) expect((await platform('POST', `/sessions/${id}/end`)).status).toBe(200);
    return id;
  };

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
    dev = await newDeveloper(app, 'session-data');
    other = await newDeveloper(app, 'session-data-other');
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it('DELETE /sessions/:id deletes an ended session with its turns, recordings and workflow history; an active one is a 409', async () => {
    const personaId = await newPersona('delete-me-session');
    const id = await recordedSession(personaId, false);

    const active = await platform('DELETE', `/sessions/${id}`);
    expect(active.status).toBe(409);
    expect(active.body).toMatchObject({ success: false, code: 'CONFLICT' });
    expect((await platform('GET', `/sessions/${id}`)).status).toBe(200);

    expect((await platform('POST', `/sessions/${id}/end`)).status).toBe(200);
    expect((await platform('GET', `/sessions/${id}/turns/1/audio?side=caller`)).status).toBe(200);
    // another account's key cannot delete it, nor learn that it exists
    expect((await platform('DELETE', `/sessions/${id}`, undefined, other.testKey)).status).toBe(404);
    expect((await platform('DELETE', `/sessions/${id}`, undefined, dev.liveKey)).status).toBe(404);

    const deleted = await platform('DELETE', `/sessions/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, data: { deleted: true, id } });
    expect((await platform('GET', `/sessions/${id}`)).status).toBe(404);
    expect((await platform('GET', `/sessions/${id}/turns/1/audio?side=caller`)).status).toBe(404);
    expect((await platform('POST', `/sessions/${id}/turns`, { text: 'Hello?' })).status).toBe(404);
    for (const table of [
      'session_turns',
      'session_turn_recordings',
      'session_tool_calls',
      'session_turn_claims',
    ])
      expect([table, await count(table, id)]).toEqual([table, 0]);
    expect((await platform('GET', '/sessions')).body.data.map((s: { id: string }) => s.id)).not.toContain(id);
    // the workflow's history (the turns' words) goes too
    // (Temporal deletes a closed workflow's history asynchronously: about 20 s on the dev server)
    await eventually(async () => {
      try {
        await app.ctx.temporal.workflow.getHandle(id).describe();
        return false;
      } catch (error) {
        return (error as Error).name === 'WorkflowNotFoundError';
      }
    }, 90_000);

    expect((await platform('DELETE', `/sessions/${id}`)).status).toBe(404);
    const bad = await platform('DELETE', `/sessions/${'x'.repeat(65)}`);
    expect(bad.status).toBe(400);
    expect(bad.body.validationErrors.join(' ')).toMatch(/^id/);
  }, 150_000);

  it("deleting a persona deletes its sessions' recordings; the sessions stay, other personas' recordings too", async () => {
    const gone = await newPersona('delete-me-persona');
    const kept = await newPersona('keep-me-persona');
    const goneSession = await recordedSession(gone);
    const keptSession = await recordedSession(kept);

    expect((await console_('DELETE', `/personas/${gone}`)).status).toBe(200);

    expect(await count('session_turn_recordings', goneSession)).toBe(0);
    expect((await platform('GET', `/sessions/${goneSession}/turns/1/audio?side=agent`)).status).toBe(404);
    expect((await platform('GET', `/sessions/${goneSession}`)).status).toBe(200);
    expect(await count('session_turn_recordings', keptSession)).toBe(2);
    expect((await platform('GET', `/sessions/${keptSession}/turns/1/audio?side=agent`)).status).toBe(200);
  });

  it('a JSON body that is not UTF-8 is a 400 naming the body, and changes nothing', async () => {
    const personaId = await newPersona('utf8-persona');
    const before = (await platform('GET', '/sessions')).body.pagination.total;
    const json = Buffer.from(JSON.stringify({ personaId, userId: 'caller-XX' }));
    const at = json.indexOf('XX');
    json[at] = 0xc3; // a lead byte followed by ASCII: not UTF-8
    json[at + 1] = 0x28;
    const res = await fetch(`${app.baseUrl}${PLATFORM}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.testKey}`, 'content-type': 'application/json' },
      body: json,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      success: false,
      code: 'VALIDATION_FAILED',
      validationErrors: ['body: is not valid UTF-8'],
    });
    expect((await platform('GET', '/sessions')).body.pagination.total).toBe(before);
    const lone = Buffer.from('{"name":"k","environment":"test","x":"\xff"}', 'latin1');
    const key = await fetch(`${app.baseUrl}${CONSOLE}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json; charset=utf-8' },
      body: lone,
    });
    expect(key.status).toBe(400);
  });
});
