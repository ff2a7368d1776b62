import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { z } from 'zod';
import { temporalCliCacheDir } from '../cli';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from './topology';

/** The three binaries the cluster runs, by the names they get in the cache directory. */
export interface TemporalServerBinaries {
  dir: string;
  /** go.temporal.io/server/cmd/server */
  server: string;
  /** go.temporal.io/server/cmd/tools/sql */
  sqlTool: string;
  /** github.com/temporalio/ui-server/v2/cmd/server */
  uiServer: string;
}

const EXE = process.platform === 'win32' ? '.exe' : '';

/** Each binary: the Go package, and its name in the cache (`go install` names both servers `server`). */
const BUILDS = [
  {
    module: 'go.temporal.io/server',
    version: TEMPORAL_SERVER_VERSION,
    packages: [
      { pkg: 'go.temporal.io/server/cmd/server', built: 'server', name: 'temporal-server' },
      { pkg: 'go.temporal.io/server/cmd/tools/sql', built: 'sql', name: 'temporal-sql-tool' },
    ],
  },
  {
    module: 'github.com/temporalio/ui-server/v2',
    version: TEMPORAL_UI_VERSION,
    packages: [
      { pkg: 'github.com/temporalio/ui-server/v2/cmd/server', built: 'server', name: 'temporal-ui-server' },
    ],
  },
] as const;

const BuildEnv = z.object({
  /** A directory that already holds temporal-server, temporal-sql-tool and temporal-ui-server. */
  TEMPORAL_SERVER_BIN_DIR: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? path.resolve(v.trim()) : undefined)),
});

/**
 * Per-user cache directory of the server build, beside the CLI's: `$XDG_CACHE_HOME` if set, else
 * `~/Library/Caches` on macOS and `~/.cache` elsewhere, then `voice-platform/temporal-server-<version>`.
 */
export function temporalServerCacheDir(): string {
  return path.join(path.dirname(temporalCliCacheDir()), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

function binariesIn(dir: string): TemporalServerBinaries {
  return {
    dir,
    server: path.join(dir, `temporal-server${EXE}`),
    sqlTool: path.join(dir, `temporal-sql-tool${EXE}`),
    uiServer: path.join(dir, `temporal-ui-server${EXE}`),
  };
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * The server, sql tool and UI server: from `TEMPORAL_SERVER_BIN_DIR`, else the cache directory, else
 * built into it with `go install` (several minutes on a cold Go cache; once per version).
 */
export async function findOrBuildTemporalServer(opts: { logger: Logger }): Promise<TemporalServerBinaries> {
  const { TEMPORAL_SERVER_BIN_DIR: fromEnv } = BuildEnv.parse(process.env);
  if (fromEnv) {
    const binaries = binariesIn(fromEnv);
    for (const file of [binaries.server, binaries.sqlTool, binaries.uiServer]) {
      if (!(await isExecutable(file)))
        throw new Error(`TEMPORAL_SERVER_BIN_DIR=${fromEnv}: ${path.basename(file)} is missing there`);
    }
    return binaries;
  }
  const dir = temporalServerCacheDir();
  const missing = [];
  for (const build of BUILDS) {
    const present = await Promise.all(build.packages.map((p) => isExecutable(path.join(dir, p.name + EXE))));
    if (present.some((ok) => !ok)) missing.push(build);
  }
  if (missing.length > 0) await buildWithGo({ dir, builds: missing, logger: opts.logger });
  return binariesIn(dir);
}

/**
 * `go install <pkg>@<version>` for each module into a private temporary GOBIN inside the cache dir,
 * then an atomic rename of each binary into place, so concurrent builds (parallel CI jobs) never
 * expose a half-written binary. CGO_ENABLED=0 like the official release builds.
 */
async function buildWithGo(opts: {
  dir: string;
  builds: (typeof BUILDS)[number][];
  logger: Logger;
}): Promise<void> {
  const { dir, logger } = opts;
  await fs.mkdir(dir, { recursive: true });
  const started = Date.now();
  const modules = opts.builds.map((b) => `${b.module}@v${b.version}`);
  logger.info(
    { modules, dir },
    'Building the Temporal server and Web UI with go (takes several minutes on a cold Go cache)',
  );
  const heartbeat = setInterval(
    () =>
      logger.info(
        { elapsedSec: Math.round((Date.now() - started) / 1000) },
        'Still building the Temporal server',
      ),
    30_000,
  );
  try {
    await Promise.all(opts.builds.map((build) => installModule({ dir, build, logger })));
  } finally {
    clearInterval(heartbeat);
  }
  logger.info({ dir, elapsedSec: Math.round((Date.now() - started) / 1000) }, 'Built the Temporal server');
}

async function installModule(opts: {
  dir: string;
  build: (typeof BUILDS)[number];
  logger: Logger;
}): Promise<void> {
  const { build } = opts;
  const gobin = await fs.mkdtemp(path.join(opts.dir, '.build-'));
  try {
    await runGo({
      args: ['install', '-ldflags=-s -w', ...build.packages.map((p) => `${p.pkg}@v${build.version}`)],
      env: { ...process.env, GOBIN: gobin, CGO_ENABLED: '0' },
      logger: opts.logger,
    });
    for (const p of build.packages) {
      await fs.rename(path.join(gobin, p.built + EXE), path.join(opts.dir, p.name + EXE));
    }
  } finally {
    await fs.rm(gobin, { recursive: true, force: true });
  }
}

function runGo(opts: { args: string[]; env: NodeJS.ProcessEnv; logger: Logger }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', opts.args, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        // a cold module cache downloads a hundred modules: those lines at debug
        const message = `go: ${line.replace(/^go: /, '')}`;
        if (/^go: downloading /.test(line)) opts.logger.debug(message);
        else opts.logger.info(message);
        tail.push(line);
        if (tail.length > 20) tail.shift();
      });
    }
    child.on('error', (err) =>
      reject(new Error(`cannot run go (needed once to build the Temporal server): ${err.message}`)),
    );
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`go ${opts.args.join(' ')} exited with ${signal ?? code}:\n${tail.join('\n')}`));
    });
  });
}
