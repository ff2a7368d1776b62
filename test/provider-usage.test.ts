import { recordProviderUse } from '../src/providers';
import { usageSince } from '../src/providers/usage.routes';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/**
 * GET /api/v1/developers/usage (docs/console.md, the overview's provider usage card): the account's
 * metered provider calls, summed per provider and kind and named, never another account's.
 */
describe('provider usage in the console API', () => {
  let app: TestApp;
  let alice: Developer;
  let bob: Developer;
  const usage = (dev: Developer | undefined, query = '') =>
    call(app.baseUrl, 'GET', `/api/v1/developers/usage${query}`, { token: dev?.token });

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
    alice = await newDeveloper(app, 'usage-alice');
    bob = await newDeveloper(app, 'usage-bob');
  });
  afterAll(() => app?.close());

  it('sums the rows recorded for the account, names each provider, and shows no other account’s', async () => {
    const made = await call(app.baseUrl, 'POST', '/api/v2/developers/providers', {
      token: alice.testKey,
      body: { name: 'Our OpenAI', kind: 'chat', preset: 'openai', apiKey: 'sk-usage-0123456789' },
    });
    expect(made.status).toBe(201);
    const chat = made.body.data.id as string;
    const em = app.ctx.orm.em.fork();
    await recordProviderUse(em, {
      accountId: alice.publisherId,
      provider: chat,
      kind: 'chat',
      inputTokens: 120,
      outputTokens: 30,
    });
    await recordProviderUse(em, {
      accountId: alice.publisherId,
      provider: chat,
      kind: 'chat',
      inputTokens: 80,
      outputTokens: 12.4,
    });
    await recordProviderUse(em, {
      accountId: alice.publisherId,
      provider: 'platform',
      kind: 'transcription',
      audioMs: 4500,
    });
    await recordProviderUse(em, {
      accountId: bob.publisherId,
      provider: 'platform',
      kind: 'voice',
      characters: 99,
    });

    const res = await usage(alice);
    expect(res.status).toBe(200);
    expect(res.body.since).toBe(usageSince(30));
    expect(res.body.usage).toEqual([
      {
        provider: chat,
        providerName: 'Our OpenAI',
        kind: 'chat',
        calls: 2,
        inputTokens: 200,
        outputTokens: 42,
        characters: 0,
        audioSeconds: 0,
      },
      {
        provider: 'platform',
        providerName: 'Platform default',
        kind: 'transcription',
        calls: 1,
        inputTokens: 0,
        outputTokens: 0,
        characters: 0,
        audioSeconds: 4.5,
      },
    ]);
    const bobs = await usage(bob, '?days=1');
    expect(bobs.body).toEqual({
      since: usageSince(1),
      usage: [expect.objectContaining({ provider: 'platform', kind: 'voice', calls: 1, characters: 99 })],
    });
    expect(JSON.stringify(bobs.body)).not.toContain(chat);
  });

  it('counts the days asked for: older rows are left out', async () => {
    const dev = await newDeveloper(app, 'usage-days');
    await app.ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into provider_usage (account_id, day, provider, kind, calls, input_tokens, output_tokens, characters, audio_ms)
         values (?, (now() at time zone 'utc')::date - 10, 'platform', 'voice', 3, 0, 0, 500, 0)`,
        [dev.publisherId],
      );
    expect((await usage(dev, '?days=7')).body.usage).toEqual([]);
    expect((await usage(dev, '?days=11')).body.usage).toEqual([
      expect.objectContaining({ provider: 'platform', kind: 'voice', calls: 3, characters: 500 }),
    ]);
  });

  it('a bad `days` is a 400 naming it; no credentials is a 401', async () => {
    for (const query of ['?days=0', '?days=91', '?days=abc', '?days=', '?days=2.5', '?day=3']) {
      const res = await usage(alice, query);
      expect([query, res.status, res.body.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
      expect(res.body.validationErrors[0]).toMatch(query === '?day=3' ? /^day/ : /^days: /);
    }
    expect((await usage(undefined)).status).toBe(401);
  });
});
