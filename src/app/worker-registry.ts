import path from 'node:path';
import { type ActivityDeps, createActivities, POOL_ACTIVITIES } from '../../activities';
import type { WorkerPool } from '../temporal/task-queues';
import type { WorkerRegistry } from '../temporal/worker';

/**
 * Where `npm run build` writes a pool's prebuilt workflow bundle (dist/workflow-bundle-<pool>.js,
 * and -traced.js with the OpenTelemetry workflow interceptors), used when present. Tests point
 * `WORKFLOW_BUNDLE_DIR` at bundles built once for the whole run.
 */
export function workflowBundlePath(
  workload: WorkerPool,
  traced: boolean,
  dir = process.env.WORKFLOW_BUNDLE_DIR ?? path.resolve(__dirname, '../..'),
): string {
  return path.join(dir, `workflow-bundle-${workload}${traced ? '-traced' : ''}.js`);
}

/**
 * A pool's workflows' source (workflows/pools/<pool>.ts; the shared queue's: every workflow,
 * workflows/index.ts), bundled by the worker when no prebuilt bundle exists.
 */
export function poolWorkflowsPath(workload: WorkerPool): string {
  return workload === 'shared'
    ? require.resolve('../../workflows')
    : require.resolve(`../../workflows/pools/${workload}`);
}

/**
 * A conversation's workflow task waits this long on the sticky queue of the worker that ran its last
 * task before any worker takes it (replaying the history). The SDK's default is 10 s: a worker
 * SIGKILLed mid-call would hold each of its sessions' next turn that long. Sessions' histories are
 * short (they continue as new), so replaying one elsewhere is cheap.
 */
const CONVERSATION_STICKY_TIMEOUT = '3 seconds';

/**
 * Everything a pool's worker runs, in one place at the composition root: the pool's activities
 * (activities/index.ts) and its workflows (workflows/pools/), each registered by this pool alone;
 * on the shared queue, every workflow and activity.
 */
export function workerRegistry(deps: ActivityDeps, workload: WorkerPool): WorkerRegistry {
  return {
    activities: workload === 'shared' ? createActivities(deps) : POOL_ACTIVITIES[workload](deps),
    workflowBundlePath: workflowBundlePath(workload, false),
    tracedWorkflowBundlePath: workflowBundlePath(workload, true),
    workflowsPath: poolWorkflowsPath(workload),
    ...(workload === 'conversations' || workload === 'shared'
      ? { workerOptions: { stickyQueueScheduleToStartTimeout: CONVERSATION_STICKY_TIMEOUT } }
      : {}),
  };
}
