import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ApiError, ConnectionError, VoicePlatformError } from '../errors';

/** One `vp` command: its words (`logs tail`), its help, and what it does. */
export interface CliCommand {
  /** The words that name it, e.g. `['logs', 'tail']`. */
  words: string[];
  /** One line for `vp --help`. */
  summary: string;
  /** `vp <cmd> --help`: usage, arguments and options. */
  help: string;
  /** Runs with the arguments after its words; resolves with the exit code. */
  run(args: string[]): Promise<number>;
}

/** A mistake in how the command was called, or in its local setup: printed as it is, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util `parseArgs`, strict, with positionals; its errors become a UsageError. */
function parseStrict<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Parses a command's arguments: its options, and exactly the positionals it names (`['sessionId']`).
 * (`--help` never gets here: main.ts prints the command's help.)
 */
export function parseCommandArgs<O extends Options>(args: string[], options: O, positionals: string[]) {
  const parsed = parseStrict(args, options);
  const missing = positionals.slice(parsed.positionals.length);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.map((name) => `<${name}>`).join(' ')}`);
  const extra = parsed.positionals.slice(positionals.length);
  if (extra.length > 0) throw new UsageError(`Unexpected argument: ${extra[0]}`);
  return parsed;
}

/** `--interval` in milliseconds: a whole number of at least 100. */
export function intervalOption(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 100)
    throw new UsageError('--interval must be a whole number of ms >= 100');
  return ms;
}

/** Why a connection failed, from fetch's innermost cause: ` (connect ECONNREFUSED 127.0.0.1:3000)`. */
function rootCause(error: Error): string {
  let cause: unknown = error.cause;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return cause instanceof Error && cause.message && cause !== error.cause ? ` (${cause.message})` : '';
}

/** What the user sees of an error: the typed API error's code, message and request id. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const lines = [`vp: ${error.code} (HTTP ${error.status}): ${error.message}`];
    for (const problem of error.validationErrors) lines.push(`  - ${problem}`);
    lines.push(`  requestId: ${error.requestId ?? 'none'}`);
    return lines.join('\n');
  }
  if (error instanceof UsageError) return `vp: ${error.message}`;
  if (error instanceof ConnectionError) return `vp: ${error.name}: ${error.message}${rootCause(error)}`;
  if (error instanceof VoicePlatformError) return `vp: ${error.name}: ${error.message}`;
  return `vp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}

/** An AbortSignal that fires on the first Ctrl-C (SIGINT) or SIGTERM; `dispose` stops listening. */
export function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** Waits `ms`, or less when `signal` fires (then resolves too: the caller checks the signal). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A failure the SDK retried and that may pass: no answer, 429 or a 5xx. */
export const isTransient = (error: unknown) =>
  error instanceof ConnectionError ||
  (error instanceof ApiError && (error.status === 429 || error.status >= 500));

/**
 * Runs `round` every `intervalMs` until it returns true or `signal` fires (Ctrl-C). A transient
 * failure (after the SDK's own retries) is reported and the next round tries again; any other
 * failure is thrown.
 */
export async function pollUntil(
  round: () => Promise<boolean>,
  intervalMs: number,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    try {
      if (await round()) return;
    } catch (error) {
      if (signal.aborted) return;
      if (!isTransient(error)) throw error;
      process.stderr.write(`${describeError(error)}\n(trying again)\n`);
    }
    await pause(intervalMs, signal);
  }
}

/** `1 turn`, `2 turns`. */
export const turns = (count: number) => `${count} turn${count === 1 ? '' : 's'}`;

/** The local time of an ISO timestamp, for tail lines: `2026-11-30 00:21:05.123`. */
export function clock(iso: string): string {
  const at = new Date(iso);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}
