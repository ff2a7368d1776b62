import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { buildContext } from '../../src/app/runtime';
import { ConfigError, loadConfig } from '../../src/config/env';
import { createLogger } from '../../src/logging/logger';
import { guardedFetch } from '../../src/outbound/fetch';
import { OutboundError, sendOutbound, urlProblem } from '../../src/outbound/http';
import { TEST_ENCRYPTION_KEY, TEST_ENV } from '../support/env';

/** What production requires besides the outbound settings under test. */
const PRODUCTION = {
  NODE_ENV: 'production',
  ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  ADMIN_TOKEN: 'a-production-admin-token-of-32-chars-at-least',
  AUTH_ISSUER: 'https://idp.example.com',
  AUTH_AUDIENCE: 'voice-platform',
  AUTH_JWKS_URL: 'https://idp.example.com/jwks',
  DATABASE_URL: 'postgres://db.example.com/voice',
};

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/**
 * P15: production accepted OUTBOUND_ALLOW_PRIVATE=true (every private address reachable), and
 * development allowed private and plain-HTTP targets without saying so. Now production refuses it,
 * naming OUTBOUND_ALLOW_CIDRS, which lists the private networks that may be reached; development
 * warns at start.
 */
describe('P15: private outbound targets', () => {
  it('production refuses OUTBOUND_ALLOW_PRIVATE=true, pointing at OUTBOUND_ALLOW_CIDRS', () => {
    for (const value of ['true', '1', 'yes', 'on']) {
      const problems = problemsOf({ ...PRODUCTION, OUTBOUND_ALLOW_PRIVATE: value });
      expect(problems).toEqual([expect.stringMatching(/^OUTBOUND_ALLOW_PRIVATE: .*OUTBOUND_ALLOW_CIDRS/)]);
    }
    expect(problemsOf({ ...PRODUCTION, OUTBOUND_ALLOW_PRIVATE: 'false' })).toEqual([]);
    // development may still open everything
    expect(loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'true' }).outbound.allowPrivate).toBe(true);
  });

  it('OUTBOUND_ALLOW_CIDRS must be CIDRs', () => {
    expect(problemsOf({ ...PRODUCTION, OUTBOUND_ALLOW_CIDRS: '10.0.0.0/8, nope, 10.0.0.1' })).toEqual([
      expect.stringMatching(/^OUTBOUND_ALLOW_CIDRS: "nope" is not a CIDR/),
      expect.stringMatching(/^OUTBOUND_ALLOW_CIDRS: "10.0.0.1" is not a CIDR/),
    ]);
  });

  it('production reaches the private networks OUTBOUND_ALLOW_CIDRS lists, and no other', async () => {
    const strict = loadConfig({ ...PRODUCTION, OUTBOUND_ALLOW_HTTP: 'true' }).outbound;
    const listed = loadConfig({
      ...PRODUCTION,
      OUTBOUND_ALLOW_HTTP: 'true',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8, fd00:1::/64',
    }).outbound;
    expect(listed.allowPrivate).toBe(false);
    const request = (policy: typeof strict, url = `${base}/`) =>
      sendOutbound({
        url,
        method: 'GET',
        headers: {},
        limits: { maxBytes: 1024, timeoutMs: 5_000 },
        policy,
      });

    const refused = await request(strict).catch((e) => e);
    expect(refused).toBeInstanceOf(OutboundError);
    expect(refused.kind).toBe('blocked');
    expect((await request(listed)).body).toBe('ok');
    expect(await (await guardedFetch(listed, { maxBytes: 1024, timeoutMs: 5_000 })(`${base}/`)).text()).toBe(
      'ok',
    );
    // private addresses outside the list stay refused (judged before any connection)
    for (const url of ['http://169.254.169.254/latest', 'http://[::1]/', 'http://[::ffff:10.0.0.1]/']) {
      expect([url, urlProblem(url, listed)]).toEqual([
        url,
        'must not point to a private or reserved address',
      ]);
    }
    expect(urlProblem('http://[fd00:1::5]/', listed)).toBeUndefined();
    expect(urlProblem('http://[::ffff:127.0.0.1]/', listed)).toBeUndefined();
  });

  it('development says at start that private and plain-HTTP targets are allowed; with both off, nothing', async () => {
    const start = async (env: Record<string, string>) => {
      const lines: { level: number; msg: string }[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()));
          done();
        },
      });
      const config = loadConfig({
        DATABASE_URL: TEST_ENV.databaseUrl(),
        TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'vp-p15-')),
        ...env,
      });
      const ctx = await buildContext(
        config,
        createLogger('info', 'p15', stream),
        { databaseUrl: config.database.url!, poolMax: 2, temporalAddress: config.temporal.address! },
        { migrate: false, registerSearchAttributes: false },
      );
      await ctx.close();
      return lines.filter((l) => /outbound calls/.test(l.msg));
    };
    const development = await start({ NODE_ENV: 'development' });
    expect(development).toHaveLength(1);
    expect(development[0].level).toBe(40); // warn
    expect(development[0].msg).toMatch(/private.*plain-HTTP/);
    const strict = await start({
      NODE_ENV: 'development',
      OUTBOUND_ALLOW_PRIVATE: 'false',
      OUTBOUND_ALLOW_HTTP: 'false',
    });
    expect(strict).toEqual([]);
  });
});
