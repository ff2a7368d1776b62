import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { waitUntil } from './readiness';

/**
 * Makes `buildId` the current version of the Worker Deployment `deploymentName`, once its workers
 * have polled (the version exists from then on). A local cluster runs the build it was started
 * with: after a rebuild the workers come back as a new version, and without this new work would
 * keep going to the previous version, whose workers are gone (in production `npm run
 * deploy:promote` does it, docs/operations.md "Deploys"). Returns the version that was current.
 */
export async function makeVersionCurrent(opts: {
  address: string;
  namespace: string;
  deploymentName: string;
  buildId: string;
  logger: Logger;
  timeoutMs?: number;
}): Promise<string | undefined> {
  const connection = await Connection.connect({ address: opts.address });
  const service = new Client({ connection, namespace: opts.namespace }).workflowService;
  let previous: string | undefined;
  try {
    await waitUntil({
      what: `worker deployment ${opts.deploymentName} version ${opts.buildId}`,
      timeoutMs: opts.timeoutMs ?? 60_000,
      intervalMs: 1_000,
      check: async () => {
        try {
          const { workerDeploymentInfo: info } = await service.describeWorkerDeployment({
            namespace: opts.namespace,
            deploymentName: opts.deploymentName,
          });
          const current = info?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
          if (current === opts.buildId) return null;
          const versions = (info?.versionSummaries ?? []).map((v) => v.deploymentVersion?.buildId);
          if (!versions.includes(opts.buildId)) return 'its workers have not polled yet';
          previous = current;
          await service.setWorkerDeploymentCurrentVersion({
            namespace: opts.namespace,
            deploymentName: opts.deploymentName,
            buildId: opts.buildId,
            identity: 'npm-run-cluster',
          });
          return 'made current; checking';
        } catch (error) {
          return error instanceof Error ? error.message : String(error);
        }
      },
    });
  } finally {
    await connection.close();
  }
  if (previous && previous !== opts.buildId)
    opts.logger.info(
      { deploymentName: opts.deploymentName, buildId: opts.buildId, previous },
      'made the running build the current version of the worker deployment',
    );
  return previous;
}
