import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { runOneShot } from '../temporal/cluster/one-shot';
import { BUILD_INFO_FILE } from '../temporal/deployment';

/** The secrets every platform process of the cluster shares, generated once into the run directory. */
export interface ClusterSecrets {
  encryptionKey: string;
  adminToken: string;
}

const SecretsFile = z.object({
  ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64 encoded'),
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters'),
});

/**
 * `<runDir>/secrets.env` (`ENCRYPTION_KEY=…`, `ADMIN_TOKEN=…`; the owner's alone): read when it is
 * there, written with new random values when not. `. .data/cluster/secrets.env` puts them in a shell.
 */
export function loadOrCreateSecrets(runDir: string): ClusterSecrets & { file: string } {
  const file = path.join(runDir, 'secrets.env');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const lines = [
      `export ENCRYPTION_KEY=${randomBytes(32).toString('base64')}`,
      `export ADMIN_TOKEN=${randomBytes(32).toString('hex')}`,
    ];
    fs.writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600, flag: 'wx' });
  }
  const entries = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /^(?:export\s+)?([A-Z_]+)=(.*)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => [match[1], match[2]]);
  const parsed = SecretsFile.safeParse(Object.fromEntries(entries));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: ${issue.path.join('.')} ${issue.message} (delete the file to make new ones)`);
  }
  return { encryptionKey: parsed.data.ENCRYPTION_KEY, adminToken: parsed.data.ADMIN_TOKEN, file };
}

/**
 * The Worker Deployment build id the compiled code in `dist/` reports (`defaultBuildId()` when it
 * runs there: the package version and the commit `npm run build` recorded), or `WORKER_BUILD_ID`.
 */
export function distBuildId(repoRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.WORKER_BUILD_ID?.trim()) return env.WORKER_BUILD_ID.trim();
  const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  const infoFile = path.join(repoRoot, 'dist', BUILD_INFO_FILE);
  const commit = fs.existsSync(infoFile)
    ? (JSON.parse(fs.readFileSync(infoFile, 'utf8')) as { commit?: string | null }).commit
    : undefined;
  return commit ? `${version}-${commit}` : version;
}

/** The compiled entry points the cluster runs. */
const DIST_ENTRIES = ['dist/src/bin/api.js', 'dist/src/bin/worker.js', 'dist/src/bin/migrate.js'];

/**
 * Builds `dist/` with `npm run build` when an entry point is missing (the output goes to
 * `<logDir>/build.log`). A `dist/` that is there is used as it is: rebuild after changing the code.
 */
export async function ensureDistBuilt(opts: { repoRoot: string; logDir: string; logger: Logger }) {
  const missing = DIST_ENTRIES.filter((entry) => !fs.existsSync(path.join(opts.repoRoot, entry)));
  if (missing.length === 0) return;
  const logFile = path.join(opts.logDir, 'build.log');
  opts.logger.info({ missing, log: logFile }, 'dist/ is missing: running npm run build (a minute or two)');
  await runOneShot({
    name: 'npm run build',
    command: 'npm',
    args: ['run', 'build'],
    logFile,
    cwd: opts.repoRoot,
  });
}

/** Variables the cluster sets per process, or that would make the processes collide: never inherited. */
const NOT_INHERITED = ['PORT', 'METRICS_PORT', 'WORKER_TASK_QUEUES', 'TEMPORAL_PORT', 'TEMPORAL_UI_PORT'];

/**
 * The environment of the cluster's platform processes: this one's (model and provider settings
 * carry over) with the cluster's settings on top. NODE_ENV=development, so no identity provider is
 * needed (the local one signs console tokens: `DATA_DIR=<dataDir> npm run token -- you@example.com`),
 * but with the production pieces that matter here: shared generated secrets, a real PostgreSQL
 * database, the cluster's Temporal and Worker Deployment versioning on. The APIs listen on
 * 127.0.0.1 only: in development they hand out console tokens.
 */
export function platformEnv(opts: {
  base: NodeJS.ProcessEnv;
  secrets: ClusterSecrets;
  dataDir: string;
  databaseUrl: string;
  temporal: { address: string; namespace: string; uiUrl: string };
  deploymentName?: string;
  buildId: string;
}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(opts.base).filter(([name]) => !NOT_INHERITED.includes(name)),
  );
  return {
    ...base,
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    LOG_FORMAT: 'json',
    DATA_DIR: opts.dataDir,
    DATABASE_URL: opts.databaseUrl,
    DATABASE_POOL_MAX: opts.base.DATABASE_POOL_MAX ?? '4',
    ENCRYPTION_KEY: opts.secrets.encryptionKey,
    ADMIN_TOKEN: opts.secrets.adminToken,
    TEMPORAL_ADDRESS: opts.temporal.address,
    TEMPORAL_NAMESPACE: opts.temporal.namespace,
    TEMPORAL_UI_URL: opts.temporal.uiUrl,
    WORKER_DEPLOYMENT_NAME: opts.deploymentName ?? 'off',
    WORKER_BUILD_ID: opts.buildId,
  };
}
