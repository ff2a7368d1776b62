import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { OAuth2Server } from 'oauth2-mock-server';
import { ENCRYPTED_COLUMNS } from '../../src/app/encrypted-columns';
import { ciphertextKeyId, Encryptor, keyIdOf } from '../../src/crypto/encryption';
import { rotateEncryptedColumns } from '../../src/crypto/rotation';
import { accessTokenFor } from '../../src/oauth';
import { providerCredentials } from '../../src/providers';
import { resolveSecrets, secretAad } from '../../src/secrets';
import { webhookSigningKeyAad } from '../../src/webhooks';
import { createIsolatedDatabase } from '../support/isolated-db';
import { completeManifest } from '../support/personas';
import { freshNumber, twilioCredentials } from '../support/phone-numbers';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from '../support/test-app';

const KEY_A = Buffer.alloc(32, 0xa1);
const KEY_B = Buffer.alloc(32, 0xb2);
const KEY_C = Buffer.alloc(32, 0xc3); // never configured: a key removed too early
const b64 = (key: Buffer) => key.toString('base64');
const ROOT = path.resolve(__dirname, '../..');

let db: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let appA: TestApp; // the service before the switch: ENCRYPTION_KEY = A
let appB: TestApp; // after the switch and the rotation: ENCRYPTION_KEY = B, no previous key
let dev: Developer;
let oauth: OAuth2Server;
const issued: { access_token?: string; refresh_token?: string }[] = [];
const tokenRequests: Record<string, string>[] = [];

beforeAll(async () => {
  db = await createIsolatedDatabase('p7');
  appA = await startTestApp({ DATABASE_URL: db.url, ENCRYPTION_KEY: b64(KEY_A), RATE_LIMITS: 'off' });
  dev = await newDeveloper(appA);
  oauth = new OAuth2Server();
  await oauth.issuer.keys.generate('RS256');
  await oauth.start(0, '127.0.0.1');
  oauth.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    token.payload.jti = randomUUID();
  });
  oauth.service.on('beforeResponse', (response: { body: never }, req: { body: Record<string, string> }) => {
    tokenRequests.push(req.body);
    issued.push(response.body);
  });
});
afterAll(async () => {
  await appA?.close();
  await appB?.close();
  await oauth?.stop();
  await db?.drop();
});

const knex = (): Knex => appA.ctx.orm.em.getConnection().getKnex();
const api = (app: TestApp, method: string, urlPath: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${urlPath}`, { token: dev.liveKey, body });
const owner = () => ({ accountId: dev.publisherId, environment: 'live' as const });

/** Every stored encrypted value, decrypted with its column's own AAD: `table.column:id` → plaintext. */
async function readAll(encryptor: Encryptor): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const spec of ENCRYPTED_COLUMNS) {
    const rows = await knex().raw('select * from ?? where ?? is not null', [spec.table, spec.column]);
    for (const row of rows.rows) {
      values.set(
        `${spec.table}.${spec.column}:${row[spec.key]}`,
        encryptor.decrypt(row[spec.column], spec.aad(row)),
      );
    }
  }
  return values;
}

/** The key id of every stored encrypted value, by column. */
async function keyIds(): Promise<Record<string, string[]>> {
  const ids: Record<string, string[]> = {};
  for (const spec of ENCRYPTED_COLUMNS) {
    const rows = await knex().raw('select ?? as v from ?? where ?? is not null', [
      spec.column,
      spec.table,
      spec.column,
    ]);
    ids[`${spec.table}.${spec.column}`] = [
      ...new Set<string>(rows.rows.map((r: { v: string }) => ciphertextKeyId(r.v))),
    ];
  }
  return ids;
}

/** One row of every encrypted kind, made through the API under key A. */
async function createEveryKind() {
  expect((await api(appA, 'PUT', '/secrets/API_TOKEN', { value: 'sk-live-value-123' })).status).toBe(201);
  // created with an Idempotency-Key: its replayable answer (holding the secret) is stored encrypted
  const hook = await call(appA.baseUrl, 'POST', '/api/v2/developers/webhooks', {
    token: dev.liveKey,
    headers: { 'idempotency-key': 'p7-hook' },
    body: { name: 'hook', url: 'http://127.0.0.1:9/hook', events: ['tool.called'] },
  });
  expect(hook.status).toBe(201);
  expect((await api(appA, 'POST', `/webhooks/${hook.body.data.id}/rotate-secret`)).status).toBe(200);
  // an Ed25519 webhook: its private signing key is stored encrypted
  const signed = await api(appA, 'POST', '/webhooks', {
    name: 'ed25519 hook',
    url: 'http://127.0.0.1:9/signed',
    events: ['tool.called'],
    signing: { algorithm: 'ed25519' },
  });
  expect(signed.status).toBe(201);
  const mcp = await api(appA, 'POST', '/mcp-servers', {
    name: 'orders',
    transport: 'http',
    endpoint: 'http://127.0.0.1:9/mcp',
    autoConnect: false,
    headers: { 'X-Api-Key': 'literal-credential-456' },
  });
  expect(mcp.status).toBe(201);
  // a test number may have a draft persona (a live one would need a review)
  const persona = await call(appA.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: dev.token,
    body: { manifest: completeManifest('p7-line') },
  });
  const phone = await call(appA.baseUrl, 'POST', '/api/v2/developers/phone-numbers', {
    token: dev.testKey,
    body: {
      number: freshNumber(),
      provider: 'twilio',
      personaId: persona.body.persona.id,
      credentials: twilioCredentials(),
    },
  });
  expect(phone.status).toBe(201);
  const modelProvider = await api(appA, 'POST', '/providers', {
    name: 'Our OpenAI',
    kind: 'chat',
    preset: 'openai',
    apiKey: 'sk-provider-key-789',
  });
  expect(modelProvider.status).toBe(201);
  const base = oauth.issuer.url!;
  const provider = await api(appA, 'POST', '/oauth/providers', {
    name: 'Calendar',
    authorizationUrl: `${base}/authorize`,
    tokenUrl: `${base}/token`,
    clientId: 'voice-client',
    clientSecret: 'client-secret-987',
    scopes: ['calendar.read', 'offline_access'],
  });
  expect(provider.status).toBe(201);
  const redirectUri = `${appA.baseUrl}/api/v2/developers/oauth/callback`;
  const authorize = async () => {
    const started = await api(appA, 'POST', '/oauth/authorize', {
      providerId: provider.body.data.id,
      redirectUri,
    });
    expect(started.status).toBe(201);
    const redirect = await fetch(started.body.data.authorizationUrl, { redirect: 'manual' });
    const location = new URL(redirect.headers.get('location')!);
    return `${location.pathname}${location.search}`;
  };
  const connected = await call(appA.baseUrl, 'GET', await authorize());
  expect(connected.status).toBe(200);
  const pendingCallback = await authorize(); // left pending across the rotation
  return {
    mcpId: mcp.body.data.id,
    modelProviderId: modelProvider.body.data.id as string,
    tokenId: connected.body.data.id,
    tokens: issued.at(-1)!,
    pendingCallback,
  };
}

describe('P7: npm run rotate-encryption-key re-encrypts every stored value under the new key', () => {
  let made: Awaited<ReturnType<typeof createEveryKind>>;

  it('rotates every encrypted column, resumably; values read the same with only the new key', async () => {
    made = await createEveryKind();
    const before = await readAll(new Encryptor(KEY_A));
    const ids = await keyIds();
    for (const spec of ENCRYPTED_COLUMNS)
      expect(ids[`${spec.table}.${spec.column}`]).toEqual([keyIdOf(KEY_A)]);

    const rotator = new Encryptor(KEY_B, [KEY_A]);
    const first = await rotateEncryptedColumns({
      knex: knex(),
      encryptor: rotator,
      columns: ENCRYPTED_COLUMNS,
      batchSize: 1,
    });
    expect(first.failures).toEqual([]);
    const stored = (c: { table: string; column: string }) =>
      [...before.keys()].filter((k) => k.startsWith(`${c.table}.${c.column}:`)).length;
    for (const c of first.columns) {
      expect(c).toEqual({
        ...c,
        rotated: stored(c),
        alreadyCurrent: 0,
        failed: 0,
        changedMeanwhile: 0,
        staleLeft: 0,
      });
    }
    for (const spec of ENCRYPTED_COLUMNS)
      expect((await keyIds())[`${spec.table}.${spec.column}`]).toEqual([keyIdOf(KEY_B)]);
    expect(await readAll(new Encryptor(KEY_B))).toEqual(before);

    const second = await rotateEncryptedColumns({
      knex: knex(),
      encryptor: rotator,
      columns: ENCRYPTED_COLUMNS,
    });
    expect(second.columns.map((c) => c.rotated)).toEqual(ENCRYPTED_COLUMNS.map(() => 0));
    expect(second.columns.map((c) => c.alreadyCurrent)).toEqual(first.columns.map(stored));
  });

  it('the service, now with key B alone, reads every value as before', async () => {
    appB = await startTestApp({ DATABASE_URL: db.url, ENCRYPTION_KEY: b64(KEY_B), RATE_LIMITS: 'off' });
    const secrets = await resolveSecrets(appB.ctx.orm.em.fork(), appB.ctx.encryptor, owner(), ['API_TOKEN']);
    expect(secrets.get('API_TOKEN')).toBe('sk-live-value-123');
    const model = await providerCredentials(
      appB.ctx.orm.em,
      appB.ctx.encryptor,
      owner().accountId,
      made.modelProviderId,
      'chat',
    );
    expect(model?.apiKey).toBe('sk-provider-key-789');
    const mcp = await api(appB, 'GET', `/mcp-servers/${made.mcpId}`);
    expect(mcp.body.data.headerNames).toEqual(['X-Api-Key']);
    expect(await accessTokenFor(appB.ctx, owner(), made.tokenId)).toBe(made.tokens.access_token);
    // an expired token refreshes with the stored refresh token (and the provider's client secret)
    await knex().raw(`update oauth_tokens set expires_at = now() - interval '1 minute' where id = ?`, [
      made.tokenId,
    ]);
    await accessTokenFor(appB.ctx, owner(), made.tokenId);
    expect(tokenRequests.at(-1)).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: made.tokens.refresh_token,
    });
    // the authorization left pending across the rotation completes (its PKCE verifier was rotated)
    expect((await call(appB.baseUrl, 'GET', made.pendingCallback)).status).toBe(200);
    const hooks = await api(appB, 'GET', '/webhooks');
    expect((await api(appB, 'POST', `/webhooks/${hooks.body.data[0].id}/rotate-secret`)).status).toBe(200);
    // the Ed25519 webhook's private key opens under key B
    const [signed] = (await knex().raw(`select * from webhooks where signing_key_ciphertext is not null`))
      .rows;
    const pem = new Encryptor(KEY_B).decrypt(
      signed.signing_key_ciphertext,
      webhookSigningKeyAad(signed.id, signed.account_id, signed.environment),
    );
    expect(pem.length).toBeGreaterThan(20);
  });

  it('a value under a key no longer configured fails clearly (table, row, key id); the others still rotate', async () => {
    expect((await api(appA, 'PUT', '/secrets/STILL_UNDER_A', { value: 'a-value' })).status).toBe(201);
    expect((await api(appB, 'PUT', '/secrets/LOST', { value: 'lost-value' })).status).toBe(201);
    const [lost] = (await knex().raw(`select * from secrets where name = 'LOST'`)).rows;
    const underC = new Encryptor(KEY_C).encrypt(
      'lost-value',
      secretAad({ ...lost, account: lost.account_id }),
    );
    await knex().raw('update secrets set ciphertext = ? where id = ?', [underC, lost.id]);

    const { code, stdout, stderr } = await runCli({
      ENCRYPTION_KEY: b64(KEY_B),
      ENCRYPTION_PREVIOUS_KEYS: b64(KEY_A),
    });
    expect(code).toBe(1);
    expect(stderr).toContain(`FAILED secrets.ciphertext row ${lost.id} (key id ${keyIdOf(KEY_C)})`);
    expect(stderr).toContain('is neither ENCRYPTION_KEY nor in ENCRYPTION_PREVIOUS_KEYS');
    expect(stdout).toMatch(/secrets\.ciphertext: 1 rotated, \d+ already current, 1 failed, 1 stale left/);
    expect(stderr + stdout).not.toMatch(/a-value|lost-value/);
    const rows = (
      await knex().raw('select name, ciphertext from secrets where account_id = ?', [dev.publisherId])
    ).rows;
    const byName = Object.fromEntries(
      rows.map((r: { name: string; ciphertext: string }) => [r.name, r.ciphertext]),
    );
    expect(ciphertextKeyId(byName.STILL_UNDER_A)).toBe(keyIdOf(KEY_B));
    expect(byName.LOST).toBe(underC); // left as it was

    // the running service names the missing key too
    const read = resolveSecrets(appB.ctx.orm.em.fork(), appB.ctx.encryptor, owner(), ['LOST']);
    await expect(read).rejects.toThrow(`no key with id ${keyIdOf(KEY_C)} is configured`);
  });

  it('lists every encrypted column of the schema (a new one must be rotated too)', async () => {
    const found = await knex().raw(
      `select table_name || '.' || column_name as name from information_schema.columns
       where table_schema = 'public' and column_name like '%ciphertext%' order by 1`,
    );
    const listed = ENCRYPTED_COLUMNS.map((c) => `${c.table}.${c.column}`).sort();
    expect(found.rows.map((r: { name: string }) => r.name)).toEqual(listed);
  });
});

function runCli(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      path.join(ROOT, 'node_modules', '.bin', 'tsx'),
      [path.join(ROOT, 'src/bin/rotate-encryption-key.ts')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          NODE_ENV: 'test',
          DATABASE_URL: db.url,
          DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'vp-rotate-')),
          LOG_LEVEL: 'silent',
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}
