import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { migrationsList } from '../src/db/migrations';

const ROOT = path.resolve(__dirname, '..');

describe('embedded PostgreSQL (PGlite) for machines with only Node.js', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-pglite-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('serves PostgreSQL on a local socket: migrations, ORM writes, and data kept across restarts', async () => {
    const { stdout } = await promisify(execFile)(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      [path.join(ROOT, 'test/support/pglite-probe.ts'), dataDir],
      { cwd: ROOT, timeout: 110_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(result).toEqual({
      reachable: true,
      firstMigrations: migrationsList.map((m) => m.name),
      secondMigrations: [],
      accounts: 1,
      reachableAfterStop: false,
      url: expect.stringMatching(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/),
    });
  }, 120_000);
});
