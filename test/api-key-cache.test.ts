import { Client } from 'pg';
import { KeyCache, type KeyRow } from '../src/auth/key-cache';
import { hashApiKey } from '../src/auth/key-material';
import { createLogger } from '../src/logging/logger';
import { type ApiProcess, startApiProcess } from './support/api-process';
import { TEST_ENV } from './support/env';
import { call, type Developer, newDeveloper, setPlan, type TestApp } from './support/test-app';

/**
 * The API key cache (docs/api-contract.md "API keys"): two API processes on one database each cache
 * the keys they saw, and a revoke or a plan change made through one is seen on the very next
 * request of the other (triggers → NOTIFY vp_api_key_changes → each process's LISTEN connection).
 * "Silent" writes below run with session_replication_role = replica, which fires no trigger: what a
 * process still answers after one shows what it serves from its cache.
 */
let a: ApiProcess;
let b: ApiProcess;
let db: Client;
const asApp = (api: ApiProcess) => ({ baseUrl: api.baseUrl, dataDir: api.dataDir }) as TestApp;
const get = (api: ApiProcess, key: string) =>
  call(api.baseUrl, 'GET', '/api/v2/developers/secrets', { token: key });

/** The key caches' LISTEN connections to the run's database. */
async function listeners(): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(
    `select pid from pg_stat_activity where application_name = 'vp-key-cache' and datname = current_database()`,
  );
  return rows.map((r) => r.pid);
}

async function untilListening(count: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await listeners()).length < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} key cache listeners after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until both processes have logged `pattern` (their log lines cross a pipe). */
async function untilLogged(pattern: RegExp, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (![a, b].every((api) => pattern.test(api.output()))) {
    if (Date.now() > deadline) throw new Error(`not logged by both processes: ${pattern}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A write no trigger sees (so no process hears of it). */
async function silently(sql: string, bindings: unknown[]): Promise<void> {
  await db.query('set session_replication_role = replica');
  try {
    await db.query(sql, bindings);
  } finally {
    await db.query('set session_replication_role = origin');
  }
}

/** A fresh developer whose live key both processes have used once their listeners were up (cached). */
async function cachedOnBoth(label: string): Promise<Developer> {
  const dev = await newDeveloper(asApp(a), label);
  for (const api of [a, b]) expect((await get(api, dev.liveKey)).status).toBe(200);
  await untilListening(2);
  for (const api of [a, b]) expect((await get(api, dev.liveKey)).status).toBe(200);
  return dev;
}

beforeAll(async () => {
  [a, b] = await Promise.all([startApiProcess(), startApiProcess()]);
  db = new Client({ connectionString: TEST_ENV.databaseUrl() });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await Promise.all([a?.close(), b?.close()]);
});

it('serves a key from the cache, and a revoke through one process is refused at once by the other', async () => {
  const dev = await cachedOnBoth('key-cache-revoke');
  const keyHash = hashApiKey(dev.liveKey);
  // a revoke no trigger sees is still served: both processes answer from their cache
  await silently('update api_keys set revoked_at = now() where key_hash = $1', [keyHash]);
  for (const api of [a, b]) expect((await get(api, dev.liveKey)).status).toBe(200);
  await silently('update api_keys set revoked_at = null where key_hash = $1', [keyHash]);

  const { rows } = await db.query<{ id: string }>('select id from api_keys where key_hash = $1', [keyHash]);
  const revoked = await call(a.baseUrl, 'DELETE', `/api/v1/developers/keys/${rows[0].id}`, {
    token: dev.token,
  });
  expect(revoked.status).toBe(200);
  const onB = await get(b, dev.liveKey);
  expect(onB.status).toBe(401);
  expect(onB.body.error).toMatch(/revoked/);
  expect((await get(a, dev.liveKey)).status).toBe(401);
  // the revoke answered once both caches dropped it, not on the 2 s timeout
  expect(a.output()).not.toMatch(/not dropped by every key cache in time/);
});

it('a plan change through one process is seen on the next request of the other', async () => {
  const dev = await cachedOnBoth('key-cache-plan');
  // the free plan's 60 a minute is tighter than the read class's 200; on pro the class's 200 is
  expect((await get(b, dev.liveKey)).headers.get('x-ratelimit-limit')).toBe('60');
  await setPlan(asApp(a), dev.publisherId, 'pro');
  expect((await get(b, dev.liveKey)).headers.get('x-ratelimit-limit')).toBe('200');
  expect((await get(a, dev.liveKey)).headers.get('x-ratelimit-limit')).toBe('200');
});

it('the last_used_at write on the hot path notifies nothing (the key stays cached)', async () => {
  const dev = await cachedOnBoth('key-cache-touch');
  const keyHash = hashApiKey(dev.liveKey);
  // what the hot path writes, through the triggers: the cache must survive it
  await db.query(`update api_keys set last_used_at = now() where key_hash = $1`, [keyHash]);
  await silently('update api_keys set revoked_at = now() where key_hash = $1', [keyHash]);
  expect((await get(b, dev.liveKey)).status).toBe(200);
});

it('with its LISTEN connection killed a process caches nothing, and caches again once it is back', async () => {
  const dev = await cachedOnBoth('key-cache-lost');
  const keyHash = hashApiKey(dev.liveKey);
  const pids = await listeners();
  await db.query('select pg_terminate_backend(pid, 5000) from unnest($1::int[]) as pid', [pids]);
  await untilLogged(/LISTEN connection lost/);
  // no trigger fires, so nothing is heard: only the cache emptied on the lost connection refuses it
  await silently('update api_keys set revoked_at = now() where key_hash = $1', [keyHash]);
  for (const api of [a, b]) {
    const res = await get(api, dev.liveKey);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/revoked/);
  }

  // reconnected (with new backends): a key is cached again
  const deadline = Date.now() + 10_000;
  while ((await listeners()).filter((pid) => !pids.includes(pid)).length < 2) {
    if (Date.now() > deadline) throw new Error('the key caches did not reconnect');
    await new Promise((r) => setTimeout(r, 50));
  }
  const again = await cachedOnBoth('key-cache-back');
  await silently('update api_keys set revoked_at = now() where key_hash = $1', [hashApiKey(again.liveKey)]);
  for (const api of [a, b]) expect((await get(api, again.liveKey)).status).toBe(200);
});

describe('KeyCache on its own', () => {
  const logger = createLogger('silent', 'key-cache-test');
  const row = (id: string, accountId = 'acc_1'): KeyRow => ({
    id,
    account_id: accountId,
    environment: 'live',
    scopes: [],
    last_used_at: null,
    revoked_at: null,
    plan: 'free',
  });
  /** A reader that counts its reads. */
  const reader = () => {
    const reads: string[] = [];
    const read = async (keyHash: string) => {
      reads.push(keyHash);
      return row(keyHash, `acc_${keyHash}`);
    };
    return { reads, read };
  };

  it('without a listen URL (PGlite) caches nothing and waits for nothing', async () => {
    const cache = new KeyCache({ logger });
    const { reads, read } = reader();
    await cache.lookup('h1', read);
    await cache.lookup('h1', read);
    expect(reads).toEqual(['h1', 'h1']);
    const t0 = Date.now();
    await cache.awaitChange('h1', cache.mark());
    expect(Date.now() - t0).toBeLessThan(50);
    await cache.close();
  });

  it('evicts the least recently used, caps an entry’s age, and drops what it hears', async () => {
    const cache = new KeyCache({ logger, listenUrl: TEST_ENV.databaseUrl(), maxEntries: 2, maxAgeMs: 300 });
    const { reads, read } = reader();
    await cache.lookup('h0', read); // opens the connection: not cached yet
    const deadline = Date.now() + 5_000;
    while (!cache.active && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(cache.active).toBe(true);
    reads.length = 0;
    for (const h of ['h1', 'h2', 'h1', 'h3', 'h1', 'h2']) await cache.lookup(h, read);
    // h2 was the least recently used when h3 came, so it was read again
    expect(reads).toEqual(['h1', 'h2', 'h3', 'h2']);

    const since = cache.mark();
    const heard = cache.awaitChange('h2', since);
    await db.query(`select pg_notify('vp_api_key_changes', 'h2')`);
    await heard;
    await cache.lookup('h2', read);
    expect(reads.at(-1)).toBe('h2');
    expect(reads).toHaveLength(5);

    await db.query(`select pg_notify('vp_api_key_changes', 'account:acc_h1')`);
    await cache.awaitChange('account:acc_h1', since); // heard already: at once
    await cache.lookup('h1', read);
    expect(reads).toHaveLength(6);

    await new Promise((r) => setTimeout(r, 350));
    await cache.lookup('h1', read);
    expect(reads).toHaveLength(7);
    await cache.close();
    expect(cache.active).toBe(false);
  });

  it('answers a change it never hears after its timeout', async () => {
    const cache = new KeyCache({ logger, listenUrl: TEST_ENV.databaseUrl(), awaitChangeMs: 100 });
    await cache.lookup('h0', reader().read);
    const deadline = Date.now() + 5_000;
    while (!cache.active && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    await cache.awaitChange('never', cache.mark());
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
    await cache.close();
  });
});
