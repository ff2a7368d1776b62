import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Logger } from '../logging/logger';

/**
 * A worker's Worker Deployment version (docs/operations.md "Deploys"): the deployment (the
 * platform's release line) and the build (this release). Conversations are pinned to the version
 * they started on; everything else moves to the current version at its next task.
 */
export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/** Written by `npm run build` beside the compiled code: the commit it was built from. */
export const BUILD_INFO_FILE = 'build-info.json';

/** This checkout's commit, when it is a git checkout with git on the PATH. */
function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: path.resolve(__dirname, '../..'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/** The commit the running code was built from: dist/build-info.json for compiled code, else the checkout's. */
function builtCommit(): string | undefined {
  const file = path.resolve(__dirname, '../..', BUILD_INFO_FILE); // dist/ when this runs compiled
  if (fs.existsSync(file))
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { commit?: string }).commit ?? undefined;
  return gitCommit();
}

let buildId: string | undefined;

/** `<package version>-<commit>` (`0.1.0-5753efbd1b99`), or `<package version>` outside git; read once. */
export function defaultBuildId(): string {
  buildId ??= readBuildId();
  return buildId;
}

function readBuildId(): string {
  const pkg = JSON.parse(fs.readFileSync(require.resolve('../../package.json'), 'utf8')) as {
    version: string;
  };
  const commit = builtCommit();
  return commit ? `${pkg.version}-${commit}` : pkg.version;
}

/** What `npm run build` records of the build (its commit), for defaultBuildId at run time. */
export function writeBuildInfo(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, BUILD_INFO_FILE), `${JSON.stringify({ commit: gitCommit() ?? null })}\n`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The first version of a deployment becomes its current version (nothing would run otherwise: new
 * work goes to the current version, and a new deployment has none); later versions wait for
 * `npm run deploy:promote`. Tries for about a minute while the version appears (it is made when its
 * workers first poll); never blocks the worker's start.
 */
export async function adoptIfFirstVersion(
  client: Client,
  namespace: string,
  version: DeploymentVersion,
  logger: Logger,
  attempts = 60,
): Promise<'adopted' | 'not first' | 'gave up'> {
  const service = client.workflowService;
  for (let i = 0; i < attempts; i++) {
    try {
      const { workerDeploymentInfo: info } = await service.describeWorkerDeployment({
        namespace,
        deploymentName: version.deploymentName,
      });
      const routing = info?.routingConfig;
      if (routing?.currentDeploymentVersion?.buildId || routing?.rampingDeploymentVersion?.buildId)
        return 'not first';
      const others = (info?.versionSummaries ?? []).filter(
        (v) => v.deploymentVersion?.buildId !== version.buildId,
      );
      if (others.length > 0) return 'not first';
      if ((info?.versionSummaries ?? []).length === 0) throw new Error('the version has not polled yet');
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: `first-version:${version.buildId}`,
      });
      logger.info(version, 'made the first version of the worker deployment its current version');
      return 'adopted';
    } catch (error) {
      if (i === attempts - 1) {
        logger.warn({ err: error, ...version }, 'could not make the first deployment version current');
        return 'gave up';
      }
      await sleep(1000);
    }
  }
  return 'gave up';
}
