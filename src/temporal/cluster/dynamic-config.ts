import type { YamlMap, YamlValue } from './yaml';

/**
 * The Temporal server's dynamic config for the cluster, each value with why it is set. The cluster
 * writes it to the file every service reads (`dynamicConfigClient`), and docker-compose.yml mounts
 * the same values (checked by scripts/check-compose.mjs).
 */
export const TEMPORAL_DYNAMIC_CONFIG: Record<string, { value: YamlValue; why: string }> = {
  'frontend.enableServerVersionCheck': {
    value: false,
    why: 'no periodic version check calling temporal.io (as the dev server is started)',
  },
  'system.enableDeploymentVersions': {
    value: true,
    why:
      'Worker Deployments (versioning v3), which the workers use (WORKER_DEPLOYMENT_NAME): ' +
      'on by default in 1.29.1, pinned so that a changed default cannot turn it off',
  },
  'frontend.workerVersioningWorkflowAPIs': {
    value: true,
    why: 'versioning in the workflow APIs (pinned conversations): on by default in 1.29.1, pinned',
  },
  'frontend.enableUpdateWorkflowExecution': {
    value: true,
    why: 'workflow updates (a session turn, a call hang-up): on by default in 1.29.1, pinned',
  },
  'system.enableActivityEagerExecution': {
    value: true,
    why:
      'eager activity dispatch: an activity scheduled on the queue of the worker that scheduled it ' +
      '(a call placed, a webhook attempt) comes back in the workflow task reply, with no matching ' +
      'round trip; off by default in 1.29.1',
  },
  'history.transferProcessorMaxPollRPS': {
    value: 200,
    why:
      "each history shard's transfer queue (a workflow task or an activity to hand to matching, a " +
      'child to start, a signal to send) read up to 200 times a second instead of 20: under steady ' +
      'load at 20 every such task waited up to 50 ms for the next read, several times on a ' +
      "campaign's path from a call's end to the next call (docs/campaigns.md)",
  },
};

/** The dynamic config file's content: `key: [{ value }]` for every setting (no constraints). */
export function dynamicConfigDocument(): YamlMap {
  return Object.fromEntries(
    Object.entries(TEMPORAL_DYNAMIC_CONFIG).map(([key, { value }]) => [key, [{ value }]]),
  );
}
