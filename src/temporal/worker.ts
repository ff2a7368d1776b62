import fs from 'node:fs';
import path from 'node:path';
import {
  type CompiledWorkerOptions,
  type Logger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import type { WorkflowBundleWithSourceMapAndFilename } from '@temporalio/worker/lib/workflow/workflow-worker-thread/input';
import { type ActivityDeps, createActivities } from '../../activities';

/** The prebuilt workflow bundle of `npm run build` (dist/workflow-bundle.js), used when present. */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../../workflow-bundle.js');
export const WORKFLOWS_PATH = require.resolve('../../workflows');

let runtimeInstalled = false;

/**
 * The SDK's Worker without the isolate execution timeout. With a timeout, every call into a workflow's
 * V8 context (several per activation) starts and joins a watchdog thread (Node's `vm` `timeout`): about
 * 0.3 ms idle, and several ms on a busy 2-core machine, where the new thread waits for a core while the
 * workflow thread waits for it. The timeout only guards against workflow code that never yields; the
 * workflow code here is the platform's own and every loop in it is bounded (voice graphs are acyclic and
 * each node runs once). `npm run bench:sessions` measures both in the same run (README "Performance").
 * `createWorker({ isolateWatchdog: true })` brings the SDK's watchdog back.
 */
export class PlatformWorker extends Worker {
  protected static override createWorkflowCreator(
    workflowBundle: WorkflowBundleWithSourceMapAndFilename,
    compiledOptions: CompiledWorkerOptions,
    logger: Logger,
  ) {
    // undefined: Node's vm runs the calls without a watchdog
    const options = { ...compiledOptions, isolateExecutionTimeoutMs: undefined as unknown as number };
    return Worker.createWorkflowCreator(workflowBundle, options, logger);
  }
}

export async function createWorker(opts: {
  deps: ActivityDeps;
  address: string;
  namespace: string;
  taskQueue: string;
  /** Tunables for tests and benchmarks. */
  overrides?: Partial<WorkerOptions>;
  /** The SDK's isolate execution timeout (a watchdog thread per call into a workflow), off by default. */
  isolateWatchdog?: boolean;
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
  const WorkerClass = opts.isolateWatchdog ? Worker : PlatformWorker;
  const worker = await WorkerClass.create({
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
