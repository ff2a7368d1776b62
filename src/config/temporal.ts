import { z } from 'zod';
import { type DeploymentVersion, defaultBuildId } from '../temporal/deployment';
import {
  parseWorkerWorkloads,
  QUEUE_LAYOUTS,
  type QueueLayout,
  type TaskQueues,
  taskQueuesFor,
  type Workload,
} from '../temporal/task-queues';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** The variables, for the environment schema (docs/configuration.md "Temporal"). */
export const temporalEnv = {
  TEMPORAL_ADDRESS: optionalString,
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('voice-platform'),
  TEMPORAL_CLI_PATH: optionalString,
  TEMPORAL_PORT: z.coerce.number().int().min(0).max(65535).default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(0).max(65535).default(8233),
  TEMPORAL_UI_URL: optionalString,
  TEMPORAL_QUEUE_LAYOUT: z.enum(QUEUE_LAYOUTS).default('pools'),
  WORKER_DEPLOYMENT_NAME: optionalString,
  WORKER_BUILD_ID: optionalString.pipe(z.string().max(255).optional()),
  WORKER_TASK_QUEUES: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      try {
        return parseWorkerWorkloads(raw);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: (error as Error).message.replace(/^WORKER_TASK_QUEUES: /, ''),
        });
        return z.NEVER;
      }
    }),
};

/**
 * Where Temporal is and how the platform uses it: `taskQueues` are the workloads' queues under the
 * `TEMPORAL_TASK_QUEUE` prefix (src/temporal/task-queues.ts), `workloads` what this process's worker
 * serves (`WORKER_TASK_QUEUES`, all by default). Without an address, the dev server is started
 * (`cliPath`, `devPort`, `devUiPort`).
 */
export interface TemporalConfig {
  address?: string;
  namespace: string;
  /** The queues' prefix (`TEMPORAL_TASK_QUEUE`). */
  taskQueuePrefix: string;
  /** A queue per pool, or one shared queue (`TEMPORAL_QUEUE_LAYOUT`). */
  queueLayout: QueueLayout;
  taskQueues: TaskQueues;
  workloads: Workload[];
  /**
   * The workers' Worker Deployment version (docs/operations.md "Deploys"): on in production (the
   * deployment named after the queue prefix), off in development and tests unless
   * `WORKER_DEPLOYMENT_NAME` is set; `off` turns it off.
   */
  deployment?: DeploymentVersion;
  cliPath?: string;
  devPort: number;
  devUiPort: number;
  uiUrl?: string;
}

type TemporalEnv = z.output<z.ZodObject<typeof temporalEnv>>;

export function temporalConfig(e: TemporalEnv, production: boolean): TemporalConfig {
  const deploymentName =
    e.WORKER_DEPLOYMENT_NAME === 'off'
      ? undefined
      : (e.WORKER_DEPLOYMENT_NAME ?? (production ? e.TEMPORAL_TASK_QUEUE : undefined));
  return {
    address: e.TEMPORAL_ADDRESS,
    namespace: e.TEMPORAL_NAMESPACE,
    taskQueuePrefix: e.TEMPORAL_TASK_QUEUE,
    queueLayout: e.TEMPORAL_QUEUE_LAYOUT,
    taskQueues: taskQueuesFor(e.TEMPORAL_TASK_QUEUE, e.TEMPORAL_QUEUE_LAYOUT),
    workloads: e.WORKER_TASK_QUEUES,
    deployment: deploymentName
      ? { deploymentName, buildId: e.WORKER_BUILD_ID ?? defaultBuildId() }
      : undefined,
    cliPath: e.TEMPORAL_CLI_PATH,
    devPort: e.TEMPORAL_PORT,
    devUiPort: e.TEMPORAL_UI_PORT,
    uiUrl: e.TEMPORAL_UI_URL,
  };
}
