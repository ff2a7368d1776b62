import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { resolveDependencies } from '../../src/app/runtime';
import { signDevToken } from '../../src/auth/dev-idp';
import { loadConfig } from '../../src/config/env';
import { createLogger } from '../../src/logging/logger';
import { databaseUrl } from '../support/env';

const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * P17: the data directory held Temporal's store (conversation text) world-readable (0644). Now the
 * directory is 0700 and the files the platform makes there are 0600, whatever the umask.
 */
describe('P17: the data directory is private', () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vp-p17-')), 'data');
  afterAll(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('is 0700, and Temporal’s store and the signing key in it are 0600 (umask 022)', async () => {
    const previous = process.umask(0o022);
    try {
      const config = loadConfig({
        NODE_ENV: 'test',
        DATA_DIR: dir,
        DATABASE_URL: databaseUrl(`vp_p17_${Date.now().toString(36)}`),
        TEMPORAL_PORT: String(await freePort()),
        TEMPORAL_UI_PORT: String(await freePort()),
      });
      const deps = await resolveDependencies(config, createLogger('silent'), true);
      try {
        await signDevToken(dir, 'p17@example.com');
        expect(modeOf(dir).toString(8)).toBe('700');
        expect(modeOf(path.join(dir, 'temporal.sqlite')).toString(8)).toBe('600');
        for (const name of fs.readdirSync(dir)) {
          expect([name, (modeOf(path.join(dir, name)) & 0o077).toString(8)]).toEqual([name, '0']);
        }
      } finally {
        await deps.stop();
      }
    } finally {
      process.umask(previous);
    }
  });
});
