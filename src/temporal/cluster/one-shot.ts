import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readLogTail } from './log-files';

/**
 * Runs a command to its end (a one-shot job: migrations, a build) with its output appended to
 * `logFile`; fails with the log's last lines when it does not exit 0.
 */
export function runOneShot(opts: {
  name: string;
  command: string;
  args: readonly string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}): Promise<void> {
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = fs.openSync(opts.logFile, 'a');
  fs.writeSync(out, `\n# ${new Date().toISOString()} ${opts.name}: ${opts.command} ${opts.args.join(' ')}\n`);
  return new Promise<void>((resolve, reject) => {
    const child = spawn(opts.command, [...opts.args], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    child.once('error', (err) =>
      reject(new Error(`${opts.name}: cannot run ${opts.command}: ${err.message}`)),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) return resolve();
      const tail = readLogTail(opts.logFile, 20);
      reject(new Error(`${opts.name} exited with ${signal ?? code}:\n${tail}\n(log: ${opts.logFile})`));
    });
  });
}
