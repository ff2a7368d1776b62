import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { readLogTail } from './log-files';

/** What a readiness check gets about the process it waits for. */
export interface ReadyProbe {
  pid: number;
  /** Where this start's output begins in the log file (it is appended to across restarts). */
  logOffset: number;
  logFile: string;
  /** Resolves with the reason when the process ends. */
  exited: Promise<string>;
}

export interface ProcessSpec {
  /** `temporal-history`, `api-1`, `worker-deliveries`: names its log file too. */
  name: string;
  command: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logDir: string;
  logger: Logger;
  /** Resolves once the process serves (throws what is not ready); run after every start. */
  ready?: (probe: ReadyProbe) => Promise<void>;
  /** How long a SIGTERM may take before SIGKILL. */
  stopGraceMs?: number;
}

/** Process groups still running, killed when this process exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/**
 * A child process in a process group of its own (so a signal reaches everything it started), with
 * its output appended to `<logDir>/<name>.log`. `kill` signals it, `stop` ends it (SIGTERM, then
 * SIGKILL after the grace period), `restart` starts it again and waits until it is ready. A shell
 * watchdog kills the group if this process dies without stopping it (SIGKILL included).
 */
export class ManagedProcess {
  private child?: ChildProcess;
  private exit?: Promise<string>;
  private exitReason?: string;
  private watchdog?: ChildProcess;
  private stopping = false;
  readonly logFile: string;

  constructor(private readonly spec: ProcessSpec) {
    this.logFile = path.join(spec.logDir, `${spec.name}.log`);
  }

  get name(): string {
    return this.spec.name;
  }

  /** The running process's pid (undefined once it has exited). */
  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  get running(): boolean {
    return this.child !== undefined && this.exitReason === undefined;
  }

  /** Resolves with the reason when the current run ends. */
  get exited(): Promise<string> {
    return this.exit ?? Promise.resolve('never started');
  }

  /** Starts the process and waits until it is ready; on failure it is stopped and the error names its log. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    installExitHook();
    fs.mkdirSync(this.spec.logDir, { recursive: true });
    const logOffset = fs.existsSync(this.logFile) ? fs.statSync(this.logFile).size : 0;
    const out = fs.openSync(this.logFile, 'a');
    this.stopping = false;
    this.exitReason = undefined;
    try {
      this.child = spawn(this.spec.command, [...this.spec.args], {
        cwd: this.spec.cwd,
        env: this.spec.env ?? process.env,
        stdio: ['ignore', out, out],
        detached: true, // its own process group
      });
    } finally {
      fs.closeSync(out);
    }
    const child = this.child;
    this.exit = this.watchExit(child);
    const pid = child.pid;
    try {
      if (pid === undefined) throw new Error(await this.exit);
      liveGroups.add(pid);
      this.watchdog = spawnWatchdog(pid);
      await this.spec.ready?.({ pid, logOffset, logFile: this.logFile, exited: this.exit });
    } catch (error) {
      await this.stop();
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`${this.name} did not start: ${reason}\n${this.tail()}\n(log: ${this.logFile})`);
    }
    this.spec.logger.debug({ name: this.name, pid }, 'process ready');
  }

  private watchExit(child: ChildProcess): Promise<string> {
    return new Promise<string>((resolve) => {
      const done = (reason: string) => {
        if (this.exitReason !== undefined) return;
        this.exitReason = reason;
        if (child.pid !== undefined) {
          liveGroups.delete(child.pid);
          signalGroup(child.pid, 'SIGKILL'); // whatever it started and left behind
        }
        if (this.watchdog?.pid !== undefined) signalGroup(this.watchdog.pid, 'SIGKILL'); // its sleep too
        this.watchdog = undefined;
        if (!this.stopping)
          this.spec.logger.warn({ name: this.name, reason, log: this.logFile }, 'process exited');
        resolve(reason);
      };
      child.once('exit', (code, signal) => done(signal ? `killed by ${signal}` : `exited with ${code}`));
      child.once('error', (err) => done(`failed to run ${this.spec.command}: ${err.message}`));
    });
  }

  /** Sends `signal` to the process group at once (SIGKILL: a crash, for chaos tests); no waiting. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    const pid = this.child?.pid;
    if (pid !== undefined && this.running) signalGroup(pid, signal);
  }

  /** Ends the process: SIGTERM, SIGKILL after the grace period; resolves once it has exited. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.stopping = true;
    this.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), this.spec.stopGraceMs ?? 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  /** Stops it if it runs (or waits for a killed one to be gone), then starts it again until ready. */
  async restart(): Promise<void> {
    await this.stop();
    await this.exited;
    await this.start();
  }

  /** The last lines of its log file. */
  tail(lines = 30): string {
    return readLogTail(this.logFile, lines);
  }
}

/**
 * A tiny `sh` loop in a group of its own that SIGKILLs the child's group once this process is gone,
 * covering deaths the 'exit' hook can't see (SIGKILL, unhandled signals). POSIX only.
 */
function spawnWatchdog(pgid: number): ChildProcess | undefined {
  if (process.platform === 'win32') return undefined;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -9 -${pgid} 2>/dev/null`;
  const watchdog = spawn('/bin/sh', ['-c', script], { stdio: 'ignore', detached: true });
  watchdog.on('error', () => {}); // best effort
  watchdog.unref();
  return watchdog;
}
