import { startWorker } from '../src/app/runtime';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { promptTokens, startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * Providers per account (docs/providers.md): an account connects its own chat model with its key
 * (encrypted, never returned), a persona picks it, and its agent's turns go there, while another
 * account's agents keep the platform's default; each call is metered on its account.
 */
describe('providers per account', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let platformLlm: Awaited<ReturnType<typeof startLlmDouble>>;
  let ownLlm: Awaited<ReturnType<typeof startLlmDouble>>;
  let alice: Developer;
  let bob: Developer;
  let alicePersona: string;
  const OWN_KEY = 'sk-alice-own-key-0123456789abcdef';
  const SECOND_KEY = 'sk-alice-second-key-9876543210';
  /** Every line the app logged, at debug level. */
  const logLines: string[] = [];
  const api = (dev: Developer, method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });

  beforeAll(async () => {
    platformLlm = await startLlmDouble();
    ownLlm = await startLlmDouble();
    app = await startTestApp(
      {
        LLM_BASE_URL: platformLlm.baseUrl,
        TEMPORAL_TASK_QUEUE: `vp-providers-${process.pid}`,
        RATE_LIMITS: 'off',
        LOG_LEVEL: 'debug',
      },
      { logDestination: { write: (line: string) => void logLines.push(line) } },
    );
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    alice = await newDeveloper(app, 'prov-alice');
    bob = await newDeveloper(app, 'prov-bob');
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await platformLlm?.close();
    await ownLlm?.close();
  });

  /** A published persona of `dev` with `conversation`; its id. */
  async function publishedPersona(dev: Developer, slug: string, conversation: object = {}) {
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: { ...completeManifest(slug), conversation } },
    });
    expect(created.status).toBe(201);
    const id = created.body.persona.id as string;
    await call(app.baseUrl, 'POST', `/api/v1/developers/personas/${id}/submit`, { token: dev.token });
    const decided = await call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(decided.body.persona.status).toBe('published');
    return id;
  }

  async function turn(dev: Developer, personaId: string, text: string) {
    const started = await api(dev, 'POST', '/sessions', { personaId, userId: 'caller' });
    expect(started.status).toBe(201);
    const answered = await api(dev, 'POST', `/sessions/${started.body.data.id}/turns`, { text });
    expect(answered.status).toBe(200);
    return answered.body.data;
  }

  async function usageRows(accountId: string) {
    return app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        'select provider, kind, calls, input_tokens, output_tokens from provider_usage where account_id = ? order by provider',
        [accountId],
      );
  }

  it('connects a provider: its key encrypted, never returned; bad input named and nothing stored', async () => {
    const made = await api(alice, 'POST', '/providers', {
      name: 'Own model',
      kind: 'chat',
      baseUrl: ownLlm.baseUrl,
      apiKey: OWN_KEY,
    });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ name: 'Own model', kind: 'chat', api: 'openai', preset: null });
    const preset = await api(alice, 'POST', '/providers', {
      name: 'OpenAI voices',
      kind: 'voice',
      preset: 'openai',
      apiKey: 'sk-preset',
    });
    expect(preset.body.data).toMatchObject({ baseUrl: 'https://api.openai.com/v1', api: 'openai' });
    const listed = await api(alice, 'GET', '/providers');
    const one = await api(alice, 'GET', `/providers/${made.body.data.id}`);
    for (const res of [made, preset, listed, one]) expect(JSON.stringify(res.body)).not.toContain('sk-');
    const [row] = await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select ciphertext from providers where id = ?', [made.body.data.id]);
    expect(row.ciphertext).not.toContain(OWN_KEY);
    expect(row.ciphertext.startsWith('v1.')).toBe(true);

    const refusals = [
      [{ name: 'x', kind: 'chat', apiKey: 'k' }, 'baseUrl'],
      [{ name: 'x', kind: 'chat', preset: 'openai', baseUrl: ownLlm.baseUrl, apiKey: 'k' }, 'baseUrl'],
      [{ name: 'x', kind: 'chat', preset: 'elevenlabs', apiKey: 'k' }, 'preset'],
      [{ name: 'x', kind: 'chat', api: 'elevenlabs', baseUrl: ownLlm.baseUrl, apiKey: 'k' }, 'api'],
      [{ name: 'x', kind: 'chat', baseUrl: 'ftp://example.com/v1', apiKey: 'k' }, 'baseUrl'],
      [{ name: 'x', kind: 'music', preset: 'openai', apiKey: 'k' }, 'kind'],
      [{ name: 'Own model', kind: 'chat', baseUrl: ownLlm.baseUrl, apiKey: 'k' }, 'name'],
    ] as const;
    for (const [body, field] of refusals) {
      const res = await api(alice, 'POST', '/providers', body);
      expect([400, 409]).toContain(res.status);
      expect(JSON.stringify(res.body)).toContain(field);
    }
    expect((await api(alice, 'GET', '/providers')).body.pagination.total).toBe(2);
    // another account's provider is not there for bob
    expect((await api(bob, 'GET', `/providers/${made.body.data.id}`)).status).toBe(404);
  });

  it('a persona picks the account’s chat provider: its turns go there with its key; another account keeps the platform’s', async () => {
    const own = (await api(alice, 'GET', '/providers?kind=chat')).body.data[0];
    const voiceProvider = (await api(alice, 'GET', '/providers?kind=voice')).body.data[0];
    // refused at save: another kind, or another account's provider
    for (const [dev, provider] of [
      [alice, voiceProvider.id],
      [bob, own.id],
    ] as const) {
      const refused = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
        token: dev.token,
        body: {
          manifest: {
            ...completeManifest(`refused-${dev.publisherId}`),
            conversation: { model: { provider } },
          },
        },
      });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('conversation.model.provider');
    }
    alicePersona = await publishedPersona(alice, 'alice-own-model', {
      model: { provider: own.id, name: 'alice-model' },
    });
    const bobPersona = await publishedPersona(bob, 'bob-default-model');
    platformLlm.script(undefined);
    ownLlm.script(undefined);

    const aliceTurn = await turn(alice, alicePersona, 'hello from alice');
    const bobTurn = await turn(bob, bobPersona, 'hello from bob');
    expect(aliceTurn.reply.text).toBe('echo: hello from alice');
    expect(bobTurn.reply.text).toBe('echo: hello from bob');
    // each double saw only its account's calls; alice's with her key and her model
    expect(ownLlm.requests).toHaveLength(1);
    expect(ownLlm.requests[0].model).toBe('alice-model');
    expect(ownLlm.authorizations).toEqual([`Bearer ${OWN_KEY}`]);
    expect(JSON.stringify(ownLlm.requests)).not.toContain('from bob');
    expect(platformLlm.requests).toHaveLength(1);
    expect(JSON.stringify(platformLlm.requests)).not.toContain('from alice');

    // metered exactly, on each account: the provider's own token counts
    const aliceUsage = await usageRows(alice.publisherId);
    expect(aliceUsage).toEqual([
      {
        provider: own.id,
        kind: 'chat',
        calls: '1',
        input_tokens: String(promptTokens(ownLlm.requests[0])),
        output_tokens: '4', // 'echo: hello from …'
      },
    ]);
    const bobUsage = await usageRows(bob.publisherId);
    expect(bobUsage).toEqual([
      {
        provider: 'platform',
        kind: 'chat',
        calls: '1',
        input_tokens: String(promptTokens(platformLlm.requests[0])),
        output_tokens: '4', // 'echo: hello from …'
      },
    ]);
  }, 60_000);

  it('a provider in use cannot be deleted (409 naming the persona); its key can be replaced', async () => {
    const own = (await api(alice, 'GET', '/providers?kind=chat')).body.data[0];
    const refused = await api(alice, 'DELETE', `/providers/${own.id}`);
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('alice-own-model');
    const replaced = await api(alice, 'PATCH', `/providers/${own.id}`, { apiKey: SECOND_KEY });
    expect(replaced.status).toBe(200);
    expect(JSON.stringify(replaced.body)).not.toContain('sk-alice');
    // the next turn uses the new key; a refusing provider is the turn's fallback, its key in no log
    ownLlm.script(() => ({ status: 401, raw: '{"error":{"message":"bad key"}}' }));
    const refusedTurn = await turn(alice, alicePersona, 'hello again');
    expect(refusedTurn.error).toContain('401');
    expect(ownLlm.authorizations).toEqual([`Bearer ${SECOND_KEY}`]);
    expect(logLines.length).toBeGreaterThan(10);
    for (const key of [OWN_KEY, SECOND_KEY]) expect(logLines.join('\n')).not.toContain(key);
    const unused = (await api(alice, 'GET', '/providers?kind=voice')).body.data[0];
    expect((await api(alice, 'DELETE', `/providers/${unused.id}`)).status).toBe(200);
    expect((await api(alice, 'GET', `/providers/${unused.id}`)).status).toBe(404);
  });
});
