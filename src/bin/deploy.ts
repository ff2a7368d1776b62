import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { loadConfigOrExit } from './config';

/**
 * The rolling deploy's controls (docs/operations.md "Deploys"), on the Worker Deployment the
 * workers declare (`WORKER_DEPLOYMENT_NAME`, default the queue prefix):
 *
 *   npm run deploy:status                      versions, which is current or ramping, what drains
 *   npm run deploy:promote -- <buildId>        makes a version current
 *   npm run deploy:promote -- <buildId> --ramp 10   sends 10% of new work to it first
 */
const Args = z.discriminatedUnion('command', [
  z.object({ command: z.literal('status') }),
  z.object({
    command: z.literal('promote'),
    buildId: z.string().min(1, 'name the build id to promote (npm run deploy:status lists them)').max(255),
    ramp: z.coerce.number().min(0).max(100).optional(),
  }),
]);

function parseArgs(argv: string[]): z.infer<typeof Args> {
  const [command, ...rest] = argv;
  const rampAt = rest.indexOf('--ramp');
  const ramp = rampAt >= 0 ? rest[rampAt + 1] : undefined;
  const buildId = (rampAt >= 0 ? rest.filter((_, i) => i !== rampAt && i !== rampAt + 1) : rest)[0] ?? '';
  const parsed = Args.safeParse({ command, buildId, ramp });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(
      `${issue.path.join('.') || 'command'}: ${issue.message} (status | promote <buildId> [--ramp N])`,
    );
  }
  return parsed.data;
}

const STATUS = temporal.api.enums.v1.WorkerDeploymentVersionStatus;
const DRAINAGE = temporal.api.enums.v1.VersionDrainageStatus;
const name = (enumeration: Record<number, string>, value: number | null | undefined, prefix: string) =>
  (enumeration[value ?? 0] ?? 'UNSPECIFIED').replace(prefix, '').toLowerCase();

async function status(client: Client, namespace: string, deploymentName: string): Promise<void> {
  const { workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({
    namespace,
    deploymentName,
  });
  const routing = info?.routingConfig;
  console.log(`deployment ${deploymentName}`);
  console.log(`  current: ${routing?.currentDeploymentVersion?.buildId ?? '(unversioned)'}`);
  if (routing?.rampingDeploymentVersion?.buildId)
    console.log(
      `  ramping: ${routing.rampingDeploymentVersion.buildId} at ${routing.rampingVersionPercentage}%`,
    );
  for (const v of info?.versionSummaries ?? []) {
    const state = name(STATUS as never, v.status, 'WORKER_DEPLOYMENT_VERSION_STATUS_');
    const drainage = name(DRAINAGE as never, v.drainageStatus, 'VERSION_DRAINAGE_STATUS_');
    console.log(
      `  version ${v.deploymentVersion?.buildId}: ${state}${drainage !== 'unspecified' ? ` (${drainage})` : ''}`,
    );
  }
}

async function promote(
  client: Client,
  namespace: string,
  deploymentName: string,
  args: { buildId: string; ramp?: number },
): Promise<void> {
  const identity = `deploy-promote@${process.env.USER ?? 'operator'}`;
  if (args.ramp !== undefined && args.ramp < 100) {
    await client.workflowService.setWorkerDeploymentRampingVersion({
      namespace,
      deploymentName,
      buildId: args.buildId,
      percentage: args.ramp,
      identity,
    });
    console.log(`${deploymentName}: ${args.buildId} now takes ${args.ramp}% of new work`);
    return;
  }
  await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName,
    buildId: args.buildId,
    identity,
  });
  console.log(
    `${deploymentName}: ${args.buildId} is the current version; pinned conversations finish where they started`,
  );
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const { config } = loadConfigOrExit('deploy');
  const { namespace, address, deployment, taskQueuePrefix } = config.temporal;
  const deploymentName = deployment?.deploymentName ?? taskQueuePrefix;
  const connection = await Connection.connect({ address: address ?? '127.0.0.1:7233' });
  try {
    const client = new Client({ connection, namespace });
    if (args.command === 'status') await status(client, namespace, deploymentName);
    else await promote(client, namespace, deploymentName, args);
  } finally {
    await connection.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
