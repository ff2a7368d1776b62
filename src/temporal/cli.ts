import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';

export const TEMPORAL_CLI_VERSION = '1.5.1';
const CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
const BINARY_NAME = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const EXE_SUFFIX = process.platform === 'win32' ? '.exe' : '';

/**
 * Per-user cache directory for our own CLI build: `$XDG_CACHE_HOME` if set, else `~/Library/Caches` on
 * macOS and `~/.cache` elsewhere, followed by `voice-platform/temporal-cli-<version>`.
 */
export function temporalCliCacheDir(): string {
  const base =
    process.env.XDG_CACHE_HOME ||
    path.join(os.homedir(), process.platform === 'darwin' ? 'Library/Caches' : '.cache');
  return path.join(base, 'voice-platform', `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

/**
 * Locates a Temporal CLI binary: `TEMPORAL_CLI_PATH`, then `temporal` on PATH, then our cached build,
 * then (if `go` is on PATH and `allowBuild`) builds it into the cache. Returns null when none is available,
 * in which case callers fall back to the SDK's own download.
 */
export async function findTemporalCli(opts: {
  logger: Logger;
  allowBuild?: boolean;
}): Promise<string | null> {
  const { logger, allowBuild = true } = opts;

  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!(await isExecutable(fromEnv))) {
      throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} does not exist or is not an executable file`);
    }
    logger.debug({ path: fromEnv }, 'Using Temporal CLI from TEMPORAL_CLI_PATH');
    return fromEnv;
  }

  const onPath = await findOnPath('temporal');
  if (onPath) {
    logger.debug({ path: onPath }, 'Using Temporal CLI from PATH');
    return onPath;
  }

  const cached = path.join(temporalCliCacheDir(), BINARY_NAME);
  if (await isExecutable(cached)) {
    logger.debug({ path: cached }, 'Using cached Temporal CLI build');
    return cached;
  }

  const go = allowBuild ? await findOnPath('go') : null;
  if (!go) return null;
  try {
    return await buildWithGo(go, logger);
  } catch (err) {
    logger.error({ err }, 'Building the Temporal CLI with go failed');
    return null;
  }
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    await fs.access(file, constants.X_OK);
    return stat.isFile();
  } catch {
    return false;
  }
}

async function findOnPath(command: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command + EXE_SUFFIX);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

/**
 * `go install` into a private temporary GOBIN inside the cache dir, then an atomic rename into place, so
 * concurrent builds (e.g. parallel CI jobs) never expose a half-written binary.
 */
async function buildWithGo(go: string, logger: Logger): Promise<string> {
  const cacheDir = temporalCliCacheDir();
  const target = path.join(cacheDir, BINARY_NAME);
  await fs.mkdir(cacheDir, { recursive: true });
  const gobin = await fs.mkdtemp(path.join(cacheDir, '.build-'));
  const started = Date.now();
  logger.info(
    { module: `${CLI_PACKAGE}@v${TEMPORAL_CLI_VERSION}`, target },
    'Building the Temporal CLI with go (takes several minutes on a cold Go cache)',
  );
  const heartbeat = setInterval(
    () =>
      logger.info(
        { elapsedSec: Math.round((Date.now() - started) / 1000) },
        'Still building the Temporal CLI',
      ),
    30_000,
  );
  try {
    await run(
      go,
      [
        'install',
        `-ldflags=-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
        `${CLI_PACKAGE}@v${TEMPORAL_CLI_VERSION}`,
      ],
      // CGO_ENABLED=0 like the official release builds: no C toolchain needed.
      { ...process.env, GOBIN: gobin, CGO_ENABLED: '0' },
      logger,
    );
    await fs.rename(path.join(gobin, BINARY_NAME), target);
  } finally {
    clearInterval(heartbeat);
    await fs.rm(gobin, { recursive: true, force: true });
  }
  logger.info(
    { path: target, elapsedSec: Math.round((Date.now() - started) / 1000) },
    'Built the Temporal CLI',
  );
  return target;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, logger: Logger): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        logger.info(`go: ${line.replace(/^go: /, '')}`);
        tail.push(line);
        if (tail.length > 20) tail.shift();
      });
    }
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args[0]} exited with ${signal ?? code}:\n${tail.join('\n')}`));
    });
  });
}
