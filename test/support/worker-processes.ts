import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = path.resolve(__dirname, '../..');
/** The compiled worker of `npm run build` (with the prebuilt workflow bundle), used when present. */
const COMPILED_WORKER = path.join(ROOT, 'dist/src/bin/worker.js');

interface Member {
  child: ChildProcess;
  ready: boolean;
  killed: boolean;
  stderrTail: string[];
}

export interface WorkerProcesses {
  /** Starts the pool's workers and resolves when every one polls. */
  start(): Promise<void>;
  /**
   * SIGKILLs a random polling worker and starts its replacement, unless that would leave no worker
   * polling; answers whether it killed one.
   */
  killOne(): boolean;
  readyCount(): number;
  /** How the pool went: processes started, SIGKILLed by the pool, and exited on their own. */
  stats(): { started: number; killed: number; crashed: number; lastCrash?: string };
  /** Process ids: the live workers', and those the pool killed. */
  pids(): { live: number[]; killed: number[] };
  stop(): Promise<void>;
}

/**
 * `size` worker processes running src/bin/worker.ts (with `compiled`, the compiled
 * dist/src/bin/worker.js of `npm run build` when it exists, as `npm run worker` runs it: no tsx and
 * a prebuilt workflow bundle, so a replacement does not bundle the workflows again), kept at `size`:
 * a worker that exits, killed or not, is replaced.
 * Separate OS processes, so a SIGKILL is a real crash: no shutdown hook, no drain, open transactions
 * and in-flight activities abandoned.
 */
export function startWorkerProcesses(
  size: number,
  env: Record<string, string>,
  opts: { compiled?: boolean } = {},
): WorkerProcesses {
  const members = new Set<Member>();
  const counts = { started: 0, killed: 0, crashed: 0, lastCrash: undefined as string | undefined };
  let running = true;
  const waiters: (() => void)[] = [];
  const killedPids: number[] = [];

  const spawnOne = () => {
    const compiled = opts.compiled === true && fs.existsSync(COMPILED_WORKER);
    // `node --import tsx`, not the tsx wrapper: the pid is the worker's own, so SIGKILL reaches it
    const args = compiled ? [COMPILED_WORKER] : ['--import', 'tsx', path.join(ROOT, 'src/bin/worker.ts')];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const member: Member = { child, ready: false, killed: false, stderrTail: [] };
    members.add(member);
    counts.started++;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!member.ready && line.includes('"worker polling"')) {
        member.ready = true;
        for (const wake of waiters.splice(0)) wake();
      }
    });
    createInterface({ input: child.stderr! }).on('line', (line) => {
      member.stderrTail.push(line);
      if (member.stderrTail.length > 5) member.stderrTail.shift();
    });
    child.once('exit', (code, signal) => {
      members.delete(member);
      if (!running) return;
      if (!member.killed) {
        counts.crashed++;
        counts.lastCrash = `exit ${signal ?? code}: ${member.stderrTail.join(' | ').slice(0, 400)}`;
      }
      // a crash (the database or Temporal down at start) is retried after a pause, a kill at once
      setTimeout(() => running && spawnOne(), member.killed ? 0 : 1_000);
    });
  };

  const readyCount = () => [...members].filter((m) => m.ready).length;
  return {
    start: async () => {
      for (let i = 0; i < size; i++) spawnOne();
      const deadline = Date.now() + 120_000;
      while (readyCount() < size) {
        if (Date.now() > deadline)
          throw new Error(`workers not polling in 120 s (${counts.lastCrash ?? ''})`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 1_000);
        });
      }
    },
    killOne: () => {
      const ready = [...members].filter((m) => m.ready);
      if (ready.length < 2) return false;
      const victim = ready[Math.floor(Math.random() * ready.length)];
      victim.killed = true;
      victim.ready = false;
      counts.killed++;
      killedPids.push(victim.child.pid ?? 0);
      victim.child.kill('SIGKILL');
      return true;
    },
    readyCount,
    stats: () => ({ ...counts }),
    pids: () => ({ live: [...members].map((m) => m.child.pid ?? 0), killed: [...killedPids] }),
    stop: async () => {
      running = false;
      await Promise.all(
        [...members].map(async ({ child }) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(force);
        }),
      );
    },
  };
}
