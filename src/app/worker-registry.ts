import path from 'node:path';
import { type ActivityDeps, createActivities } from '../../activities';
import type { WorkerRegistry } from '../temporal/worker';

/** The prebuilt workflow bundle of `npm run build` (dist/workflow-bundle.js), used when present. */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../../workflow-bundle.js');
/** The same with the OpenTelemetry workflow interceptors (dist/workflow-bundle-traced.js), for tracing. */
export const TRACED_WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../../workflow-bundle-traced.js');
/** The workflows' source (workflows/index.ts), bundled by the worker when no prebuilt bundle exists. */
export const WORKFLOWS_PATH = require.resolve('../../workflows');

/**
 * Everything a worker runs, in one place at the composition root: every area's activities (through
 * activities/index.ts) and every workflow (workflows/index.ts).
 */
export function workerRegistry(deps: ActivityDeps): WorkerRegistry {
  return {
    activities: createActivities(deps),
    workflowBundlePath: WORKFLOW_BUNDLE_PATH,
    tracedWorkflowBundlePath: TRACED_WORKFLOW_BUNDLE_PATH,
    workflowsPath: WORKFLOWS_PATH,
  };
}
