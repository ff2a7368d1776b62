import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const ROOT = path.resolve(__dirname, '..');
const SDK = path.join(ROOT, 'sdk');
const run = (command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
  execFileSync(command, args, { ...options, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * The SDK as it is published: `npm run build -w sdk`, `npm pack` in sdk/, the tarball unpacked into
 * a fresh project in a temporary directory (as npm would install it, with its one dependency), then
 * imported there as an ES module and as CommonJS, type-checked as both, and the README's quickstart
 * run verbatim against a running platform.
 */
describe('the SDK package', () => {
  let app: TestApp;
  let dev: Developer;
  let project: string;

  beforeAll(async () => {
    app = await startTestApp();
    dev = await newDeveloper(app, 'sdk-package');
    // CI's `npm run build` has just built it (from a fresh clone); elsewhere, build it now
    const built = fs.existsSync(path.join(SDK, 'dist', 'esm', 'index.js'));
    if (!(process.env.CI === 'true' && built)) run('npm', ['run', '-s', 'build', '-w', 'sdk'], { cwd: ROOT });
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-sdk-consumer-'));
    const tarball = run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: SDK }).trim();
    const installed = path.join(project, 'node_modules', '@voice-platform', 'sdk');
    fs.mkdirSync(installed, { recursive: true });
    run(
      'tar',
      ['xzf', path.join(project, tarball.split('\n').at(-1)!), '-C', installed, '--strip-components=1'],
      {
        cwd: project,
      },
    );
    // its one dependency (`ws`, for the CLI's `vp listen`), as npm would install it beside
    fs.cpSync(path.join(ROOT, 'node_modules', 'ws'), path.join(project, 'node_modules', 'ws'), {
      recursive: true,
    });
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it('packs only the built files and the README', () => {
    const files = run('tar', ['tzf', fs.readdirSync(project).find((f) => f.endsWith('.tgz'))!], {
      cwd: project,
    })
      .split('\n')
      .filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/dist/esm/index.js',
        'package/dist/esm/schema.d.ts',
        'package/dist/cjs/index.js',
        'package/dist/cjs/index.d.ts',
      ]),
    );
    expect(files.filter((f) => f.startsWith('package/src/') || f.endsWith('openapi.json'))).toEqual([]);
  });

  it('imports as an ES module and as CommonJS, with types for both', () => {
    const check = (file: string, source: string) => {
      fs.writeFileSync(path.join(project, file), source);
      return run(process.execPath, [file], { cwd: project }).trim();
    };
    const probe = (load: string) =>
      `${load}\nconst c = new VoicePlatform({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });\n` +
      'console.log([typeof c.webhooks.create, typeof c.sessions.turns.create, typeof c.webhooks.unwrap, new NotFoundError(404, "NOT_FOUND", "x", null).code].join(" "));';
    const expected = 'function function function NOT_FOUND';
    expect(
      check('esm.mjs', probe("import { VoicePlatform, NotFoundError } from '@voice-platform/sdk';")),
    ).toBe(expected);
    expect(
      check('cjs.cjs', probe("const { VoicePlatform, NotFoundError } = require('@voice-platform/sdk');")),
    ).toBe(expected);
    const typed = (load: string) =>
      `${load}\nconst c = new VoicePlatform({ apiKey: 'k', baseUrl: 'http://x' });\n` +
      "export const created: Promise<{ id: string }> = c.webhooks.create({ name: 'n', url: 'https://example.com', events: ['session.ended'] });\n";
    fs.writeFileSync(
      path.join(project, 'typed.mts'),
      typed("import { VoicePlatform } from '@voice-platform/sdk';"),
    );
    fs.writeFileSync(
      path.join(project, 'typed.cts'),
      `import sdk = require('@voice-platform/sdk');\nconst c = new sdk.VoicePlatform({ apiKey: 'k', baseUrl: 'http://x' });\nexport const list = c.phoneNumbers.list();\n`,
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          noEmit: true,
          strict: true,
          module: 'node16',
          moduleResolution: 'node16',
          lib: ['es2022', 'dom'],
          types: [],
        },
        files: ['typed.mts', 'typed.cts'],
      }),
    );
    run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', '.'], { cwd: project });
  }, 60_000);

  it("runs the README's quickstart verbatim", async () => {
    const readme = fs.readFileSync(path.join(SDK, 'README.md'), 'utf8');
    const quickstart = /## Quickstart\s+```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(quickstart?.split('\n').filter(Boolean).length).toBeLessThanOrEqual(10);
    fs.writeFileSync(path.join(project, 'quickstart.mjs'), quickstart!);
    // asynchronously: the app answering it runs in this process
    const { stdout: output } = await promisify(execFile)(process.execPath, ['quickstart.mjs'], {
      cwd: project,
      env: { ...process.env, VOICE_API_KEY: dev.testKey, VOICE_BASE_URL: app.baseUrl },
    });
    expect(output).toMatch(/^created \S+ signing secret whsec_/);
    expect(output).toContain('calls active');
    expect(output).toContain('0 phone numbers');
  }, 60_000);
});
