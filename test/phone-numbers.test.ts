import { openCredentials, PhoneNumber } from '../src/telephony';
import { TEST_ADMIN_TOKEN } from './support/env';
import { completeManifest } from './support/personas';
import { freshNumber, telnyxCredentials, twilioCredentials } from './support/phone-numbers';
import { call, type Developer, newDeveloper, type TestApp, withAppAndDeveloper } from './support/test-app';

let app: TestApp;
let dev: Developer;
// rate limits are not what is tested here (this file makes well over a minute's budget of writes)
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
);

/** Every answer's body as sent, so a test can look for a credential in all of them. */
const answered: string[] = [];

async function api(method: string, path: string, body?: unknown, key = dev.testKey) {
  const res = await call(app.baseUrl, method, `/api/v2/developers/phone-numbers${path}`, {
    token: key,
    body,
  });
  answered.push(JSON.stringify(res.body));
  return res;
}

async function persona(owner: Developer, publish = false): Promise<string> {
  const slug = `pn-agent-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;
  const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: owner.token,
    body: { manifest: completeManifest(slug) },
  });
  const id = created.body.persona.id as string;
  if (publish) {
    await call(app.baseUrl, 'POST', `/api/v1/developers/personas/${id}/submit`, { token: owner.token });
    const decided = await call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(decided.body.persona.status).toBe('published');
  }
  return id;
}

let draft: string;
beforeAll(async () => {
  draft = await persona(dev);
});

const twilioNumber = (overrides: Record<string, unknown> = {}) => ({
  number: freshNumber(),
  provider: 'twilio',
  personaId: draft,
  credentials: twilioCredentials(),
  ...overrides,
});

async function created(body: Record<string, unknown> = twilioNumber(), key = dev.testKey) {
  const res = await api('POST', '', body, key);
  expect(res.status).toBe(201);
  return res.body.data;
}

/** The row as stored, read with SQL. */
async function storedRow(id: string): Promise<Record<string, unknown>> {
  const sql = 'select * from phone_numbers where id = ?';
  return (await app.ctx.orm.em.fork().getConnection().execute(sql, [id]))[0];
}

const total = async (key = dev.testKey) =>
  (await api('GET', '?limit=200', undefined, key)).body.pagination.total;

describe('phone numbers (docs/api-contract.md "Phone numbers")', () => {
  it('creates, gets, lists, updates and deletes a number; inboundUrl names its id', async () => {
    const body = twilioNumber({ name: 'Support line' });
    const pn = await created(body);
    expect(pn).toEqual({
      id: expect.stringMatching(/^pn_[A-Za-z0-9]{24}$/),
      number: body.number,
      provider: 'twilio',
      personaId: draft,
      name: 'Support line',
      inboundUrl: `http://localhost:3000/api/v2/telephony/twilio/voice/${pn.id}`,
      statusCallbackUrl: `http://localhost:3000/api/v2/telephony/twilio/status/${pn.id}`,
      createdAt: expect.any(String),
      updatedAt: pn.createdAt,
    });
    expect((await api('GET', `/${pn.id}`)).body).toEqual({ success: true, data: pn });
    const list = await api('GET', `?provider=twilio&personaId=${draft}&limit=1`);
    expect(list.body.data).toEqual([pn]); // newest first
    expect(list.body.pagination).toEqual({ total: expect.any(Number), limit: 1, offset: 0 });

    const other = await persona(dev);
    const renamed = await api('PUT', `/${pn.id}`, { name: 'Sales', personaId: other });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({
      id: pn.id,
      number: body.number,
      name: 'Sales',
      personaId: other,
    });
    expect(renamed.body.data.updatedAt >= pn.updatedAt).toBe(true);
    const unnamed = await api('PUT', `/${pn.id}`, { name: null });
    expect(unnamed.body.data).toMatchObject({ name: null, personaId: other });

    expect((await api('DELETE', `/${pn.id}`)).body).toEqual({
      success: true,
      data: { deleted: true, id: pn.id },
    });
    expect((await api('DELETE', `/${pn.id}`)).status).toBe(404);
    expect((await api('GET', `/${pn.id}`)).status).toBe(404);
  });

  it.each([
    ['a number without +', { number: '4155552671' }, 'number: must be an E.164 number'],
    ['a number with spaces', { number: '+1 415 555 2671' }, 'number: must be an E.164 number'],
    ['a number too short for its plan', { number: '+1415555267' }, 'number: is not a valid phone number'],
    ['no such country code', { number: '+999123456789' }, 'number: is not a valid phone number'],
    [
      'a trunk prefix',
      { number: '+4402079460000' },
      'number: is not in E.164 form; did you mean +442079460000?',
    ],
    ['another provider', { provider: 'vonage' }, 'provider: '],
    ['no credentials', { credentials: undefined }, 'credentials: '],
    [
      'a bad Account SID',
      { credentials: { accountSid: 'AC123', authToken: 'x' } },
      'credentials.accountSid: ',
    ],
    ['no auth token', { credentials: { accountSid: `AC${'0'.repeat(32)}` } }, 'credentials.authToken: '],
    [
      'Telnyx credentials on Twilio',
      { credentials: telnyxCredentials() },
      'credentials.apiKey: unknown field',
    ],
    [
      'a Telnyx key that is no Ed25519 key',
      { provider: 'telnyx', credentials: { ...telnyxCredentials(), publicKey: 'abc' } },
      'credentials.publicKey: ',
    ],
    ['no persona', { personaId: undefined }, 'personaId: '],
    ['an unknown field', { extra: 1 }, 'extra: unknown field'],
  ])('%s → 400 naming the field, nothing created', async (_, overrides, line) => {
    const before = await total();
    const res = await api('POST', '', twilioNumber(overrides));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: expect.any(String),
      code: 'VALIDATION_FAILED',
      validationErrors: expect.arrayContaining([expect.stringContaining(line)]),
    });
    expect(await total()).toBe(before);
  });

  it('the same number twice in one account and environment → 409; in the other environment or account it is another', async () => {
    const body = twilioNumber();
    await created(body);
    const again = await api('POST', '', { ...body, credentials: twilioCredentials() });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
    const live = await persona(dev, true);
    await created({ ...body, personaId: live }, dev.liveKey);
    const other = await newDeveloper(app, 'pn-other');
    await created({ ...body, personaId: await persona(other) }, other.testKey);
  });

  it('a live number needs a live (approved) persona, as a live session does; a test number may have a draft', async () => {
    const refused = await api('POST', '', twilioNumber(), dev.liveKey);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('published') });
    const session = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: dev.liveKey,
      body: { personaId: draft, userId: 'pn-caller' },
    });
    expect(session.status).toBe(409);
    expect(refused.body.error).toBe(session.body.error);

    const live = await persona(dev, true);
    const pn = await created(twilioNumber({ personaId: live }), dev.liveKey);
    const toDraft = await api('PUT', `/${pn.id}`, { personaId: draft }, dev.liveKey);
    expect(toDraft.status).toBe(409);
    expect((await api('GET', `/${pn.id}`, undefined, dev.liveKey)).body.data.personaId).toBe(live);
  });

  it('another account or environment sees none of it (404), and cannot use another account’s persona', async () => {
    const pn = await created();
    const other = await newDeveloper(app, 'pn-stranger');
    for (const key of [dev.liveKey, other.testKey, other.liveKey]) {
      expect((await api('GET', `/${pn.id}`, undefined, key)).status).toBe(404);
      expect((await api('PUT', `/${pn.id}`, { name: 'mine' }, key)).status).toBe(404);
      expect((await api('DELETE', `/${pn.id}`, undefined, key)).status).toBe(404);
      const ids = (await api('GET', '?limit=200', undefined, key)).body.data.map((n: { id: string }) => n.id);
      expect(ids).not.toContain(pn.id);
    }
    expect((await api('GET', `/${pn.id}`)).body.data).toEqual(pn);
    const foreign = await api('POST', '', twilioNumber(), other.testKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
  });

  it('credentials (Twilio’s, Telnyx’s) are encrypted at rest, replaced by PUT in their provider’s shape, never answered', async () => {
    const first = twilioCredentials();
    const pn = await created(twilioNumber({ credentials: first }));
    const raw = await storedRow(pn.id);
    expect(raw.credentials_ciphertext).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(JSON.stringify(raw)).not.toContain(first.authToken);
    expect(JSON.stringify(raw)).not.toContain(first.accountSid);

    const wrongShape = await api('PUT', `/${pn.id}`, { credentials: telnyxCredentials() });
    expect(wrongShape.status).toBe(400);
    expect(wrongShape.body.validationErrors).toEqual(
      expect.arrayContaining([
        'credentials.apiKey: unknown field',
        expect.stringMatching(/^credentials\.accountSid: /),
      ]),
    );
    const renamed = await api('PUT', `/${pn.id}`, { name: 'kept' });
    expect(renamed.status).toBe(200);
    const em = app.ctx.orm.em.fork();
    const stored = async () =>
      openCredentials(app.ctx.encryptor, await em.findOneOrFail(PhoneNumber, { id: pn.id }));
    expect(await stored()).toEqual({ provider: 'twilio', ...first }); // omitted: the old ones stay

    const second = twilioCredentials();
    expect((await api('PUT', `/${pn.id}`, { credentials: second })).status).toBe(200);
    em.clear();
    expect(await stored()).toEqual({ provider: 'twilio', ...second });
    expect(JSON.stringify(await storedRow(pn.id))).not.toContain(second.authToken);

    const telnyx = telnyxCredentials();
    const onTelnyx = await created(twilioNumber({ provider: 'telnyx', credentials: telnyx }));
    expect(onTelnyx.inboundUrl).toMatch(new RegExp(`/api/v2/telephony/telnyx/voice/${onTelnyx.id}$`));
    await api('GET', '?limit=200');
    const everything = answered.join('\n');
    for (const secret of [first.authToken, second.authToken, telnyx.apiKey])
      expect(everything).not.toContain(secret);
  });

  it('a key without phone:write may read but not change numbers (403 naming the scope)', async () => {
    const pn = await created();
    const keyWith = async (scopes: string[]) =>
      (
        await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
          token: dev.token,
          body: { name: `pn-${scopes.join('-')}`, environment: 'test', scopes },
        })
      ).body.key.fullKey as string;
    const reader = await keyWith(['phone:read']);
    expect((await api('GET', `/${pn.id}`, undefined, reader)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '', twilioNumber()],
      ['PUT', `/${pn.id}`, { name: 'x' }],
      ['DELETE', `/${pn.id}`, undefined],
    ] as const) {
      const res = await api(method, path, body, reader);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('This API key lacks the "phone:write" scope');
    }
    const stranger = await keyWith(['sessions:read']);
    expect((await api('GET', '', undefined, stranger)).body.error).toBe(
      'This API key lacks the "phone:read" scope',
    );
    expect((await api('GET', `/${pn.id}`)).body.data).toEqual(pn);
  });

  it('a deleted persona leaves its numbers without a persona; a PUT names another', async () => {
    const doomed = await persona(dev);
    const pn = await created(twilioNumber({ personaId: doomed }));
    const gone = await call(app.baseUrl, 'DELETE', `/api/v1/developers/personas/${doomed}`, {
      token: dev.token,
    });
    expect(gone.status).toBe(200);
    expect((await api('GET', `/${pn.id}`)).body.data).toMatchObject({ id: pn.id, personaId: null });
    expect((await api('PUT', `/${pn.id}`, { personaId: draft })).body.data.personaId).toBe(draft);
  });

  it('PUT needs a field to change, and takes neither the number nor the provider', async () => {
    const pn = await created();
    for (const [body, line] of [
      [{}, 'body: at least one field to change is required'],
      [{ number: freshNumber() }, 'number: unknown field'],
      [{ provider: 'telnyx' }, 'provider: unknown field'],
      [{ personaId: 'nope' }, 'personaId: must be a persona id'],
    ] as const) {
      const res = await api('PUT', `/${pn.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.validationErrors).toEqual(expect.arrayContaining([expect.stringContaining(line)]));
    }
    expect((await api('GET', `/${pn.id}`)).body.data).toEqual(pn);
  });
});
