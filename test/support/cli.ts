import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
/** The built `vp` (the bin of sdk/package.json). */
export const VP_BIN = path.join(ROOT, 'sdk', 'dist', 'cjs', 'cli', 'main.js');

/** Builds the SDK with its CLI (CI's `npm run build` has done it already). */
export function buildCli(): void {
  if (process.env.CI === 'true' && fs.existsSync(VP_BIN)) return;
  execFileSync('npm', ['run', '-s', 'build', '-w', 'sdk'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A fresh config home (XDG_CONFIG_HOME) for `vp`, so no test reads or writes the user's. */
export const newConfigHome = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vp-cli-config-'));

/** `vp`'s environment: the test's, without VP_* (unless given), with its own config home. */
function cliEnv(configHome: string, env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VP_')));
  return { ...base, XDG_CONFIG_HOME: configHome, ...env };
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout (or stderr) matches `pattern`; rejects after `timeoutMs` or on exit. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit code, once it exits. */
  exited: Promise<number | null>;
}

/** Starts `node sdk/dist/cjs/cli/main.js …args` as a child process. */
export function startCli(
  args: string[],
  opts: { configHome: string; env?: Record<string, string> },
): RunningCli {
  const child = spawn(process.execPath, [VP_BIN, ...args], { env: cliEnv(opts.configHome, opts.env ?? {}) });
  const text = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    text.stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    text.stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitFor = (pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout', timeoutMs = 30_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      let gone = false;
      exited.then(() => {
        gone = true;
      });
      const check = () => {
        const match = text[stream].match(pattern);
        if (match) return resolve(match);
        if (gone || Date.now() > deadline) {
          const why = gone ? 'vp exited' : `not within ${timeoutMs} ms`;
          return reject(
            new Error(`${why}: ${pattern} in ${stream}\nstdout: ${text.stdout}\nstderr: ${text.stderr}`),
          );
        }
        setTimeout(check, 50);
      };
      check();
    });
  return { child, stdout: () => text.stdout, stderr: () => text.stderr, waitFor, exited };
}

/** Runs `vp` to its end, with `input` on its stdin. */
export async function runCli(
  args: string[],
  opts: { configHome: string; env?: Record<string, string>; input?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, opts);
  cli.child.stdin.end(opts.input ?? '');
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}
