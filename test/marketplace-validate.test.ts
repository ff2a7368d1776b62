import { TEST_ADMIN_TOKEN } from './support/env';
import { call, startTestApp, type TestApp } from './support/test-app';

const MKT = '/api/marketplace';

/** POST /publisher/validate (what the console's publish form checks as you type) and released versions in browse. */
describe('marketplace: validating a manifest without submitting it; released versions and changelogs', () => {
  let app: TestApp;
  const PUB = { 'x-publisher-id': 'pub_validate', 'x-publisher-name': 'Validate Co' };
  const OTHER = { 'x-publisher-id': 'pub_validate_other', 'x-publisher-name': 'Other Co' };
  const manifest = (extra: Record<string, unknown> = {}) => ({
    id: 'validate-tool',
    name: 'Validate Tool',
    version: '1.0.0',
    publisher: { id: 'pub_validate', name: 'Validate Co' },
    description: { short: 'Echo', long: 'Echoes its input.' },
    execution: { runtime: { type: 'http', version: '1' }, endpoint: 'http://127.0.0.1:9/echo' },
    interface: { llmDescription: 'Echoes' },
    ...extra,
  });
  const send = (method: string, path: string, body: unknown, headers = PUB) =>
    call(app.baseUrl, method, MKT + path, { headers, body });
  const validate = (body: Record<string, unknown>, headers = PUB) =>
    send('POST', '/publisher/validate', { type: 'tool', ...body }, headers);
  const approve = async () => {
    const res = await call(app.baseUrl, 'POST', '/api/admin/marketplace/items/validate-tool/review', {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('reports every problem submit would, and the warnings, storing nothing', async () => {
    const ok = await validate({ manifest: manifest() });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, validationErrors: [] });
    expect(ok.body.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^pricing: none given/),
        expect.stringMatching(/^quotas:/),
      ]),
    );

    const bad = await validate({
      manifest: manifest({
        id: 'Bad Id',
        version: 'v1',
        publisher: { id: 'pub_someone', name: 'X' },
        changelog: '',
      }),
    });
    expect(bad.status).toBe(200);
    expect(bad.body.valid).toBe(false);
    expect(bad.body.warnings).toEqual([]);
    const errors: string[] = bad.body.validationErrors;
    for (const pattern of [
      /^manifest\.publisher\.id "pub_someone"/,
      /^manifest\.id: /,
      /^manifest\.version: /,
      /^manifest\.changelog: /,
    ]) {
      expect(errors).toEqual(expect.arrayContaining([expect.stringMatching(pattern)]));
    }
    const items = await call(app.baseUrl, 'GET', `${MKT}/publisher/items`, { headers: PUB });
    expect(items.body.totalCount).toBe(0);
  });

  it('knows taken ids, versions not greater than the latest, and other publishers’ items', async () => {
    expect((await send('POST', '/publisher/submit', { type: 'tool', manifest: manifest() })).status).toBe(
      200,
    );
    const taken = await validate({ manifest: manifest() });
    expect(taken.body.validationErrors).toEqual([
      'manifest.id: "validate-tool" is already taken in the marketplace',
    ]);

    const same = await validate({ itemId: 'validate-tool', manifest: manifest() });
    expect(same.body.validationErrors).toEqual([
      'manifest.version: must be greater than the latest submitted version 1.0.0',
    ]);
    const agent = await validate({ itemId: 'validate-tool', type: 'agent', manifest: manifest() });
    expect(agent.body.validationErrors).toEqual(
      expect.arrayContaining(['type: item validate-tool is a tool']),
    );
    const next = await validate({
      itemId: 'validate-tool',
      manifest: manifest({ version: '1.1.0', changelog: 'Echoes faster.' }),
    });
    expect(next.body).toMatchObject({ valid: true, validationErrors: [] });
    const theirs = await validate({ itemId: 'validate-tool', manifest: manifest() }, OTHER);
    expect(theirs.status).toBe(404);
  });

  it('lists released versions with their changelogs in browse and in the publisher view', async () => {
    await approve();
    const updated = await send('PUT', '/publisher/validate-tool', {
      manifest: manifest({ version: '1.1.0', changelog: 'Echoes faster.' }),
    });
    expect(updated.status).toBe(200);
    const during = await call(app.baseUrl, 'GET', `${MKT}/browse/tools/validate-tool`);
    expect(during.body.tool.versions).toEqual([
      { version: '1.0.0', releasedAt: expect.any(String), changelog: null },
    ]);
    await approve();
    const after = await call(app.baseUrl, 'GET', `${MKT}/browse/tools/validate-tool`);
    expect(
      after.body.tool.versions.map((v: { version: string; changelog: string | null }) => [
        v.version,
        v.changelog,
      ]),
    ).toEqual([
      ['1.1.0', 'Echoes faster.'],
      ['1.0.0', null],
    ]);
    const mine = await call(app.baseUrl, 'GET', `${MKT}/publisher/validate-tool`, { headers: PUB });
    expect(mine.body.item.versions[0]).toMatchObject({
      version: '1.1.0',
      status: 'approved',
      changelog: 'Echoes faster.',
    });
    expect(mine.body.item.versions[1]).toMatchObject({
      version: '1.0.0',
      status: 'superseded',
      changelog: null,
    });
  });
});
