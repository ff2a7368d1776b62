import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { type ActivityDeps, createActivities } from '../../activities';

/** The prebuilt workflow bundle of `npm run build` (dist/workflow-bundle.js), used when present. */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../../workflow-bundle.js');
export const WORKFLOWS_PATH = require.resolve('../../workflows');

let runtimeInstalled = false;

export async function createWorker(opts: {
  deps: ActivityDeps;
  address: string;
  namespace: string;
  taskQueue: string;
  /** Tunables for tests and benchmarks. */
  overrides?: Partial<WorkerOptions>;
}): Promise<{ worker: Worker; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    // Core SDK logs go through the project's logger at warn and above.
    Runtime.install({
      logger: {
        log: (level, message, meta) => {
          if (level === 'WARN') opts.deps.logger.warn(meta ?? {}, message);
          else if (level === 'ERROR') opts.deps.logger.error(meta ?? {}, message);
        },
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: (message, meta) => opts.deps.logger.warn(meta ?? {}, message),
        error: (message, meta) => opts.deps.logger.error(meta ?? {}, message),
      },
    });
    runtimeInstalled = true;
  }
  const connection = await NativeConnection.connect({ address: opts.address });
  const workflowSource = fs.existsSync(WORKFLOW_BUNDLE_PATH)
    ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }
    : { workflowsPath: WORKFLOWS_PATH };
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: createActivities(opts.deps),
    shutdownGraceTime: '8 seconds',
    ...workflowSource,
    ...opts.overrides,
  });
  return { worker, connection };
}
