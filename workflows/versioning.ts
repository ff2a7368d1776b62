import { workflowInfo } from '@temporalio/workflow';

/**
 * A conversation's versioning behavior (docs/operations.md "Deploys"): pinned to the version it
 * started on when its worker belongs to a Worker Deployment, none on an unversioned worker (which
 * may not declare one). Read for each run.
 */
export function pinnedWhenVersioned(): { versioningBehavior?: 'PINNED' } {
  // an unversioned worker reports a build id of its own (its bundle's) but no deployment name
  return workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' } : {};
}
