import fs from 'node:fs';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Logger as PlatformLogger } from '../logging/logger';
import { workerTelemetryOptions } from '../telemetry/temporal';
import type { Tracing } from '../telemetry/tracing';

/**
 * What a worker runs: the activities and the workflows (a prebuilt bundle when it exists, else the
 * workflows' source). The registry that knows them lives at the composition root (src/app/worker-registry.ts).
 */
export interface WorkerRegistry {
  activities: WorkerOptions['activities'];
  workflowBundlePath: string;
  /** The same bundle with the OpenTelemetry workflow interceptors (used when tracing is on). */
  tracedWorkflowBundlePath: string;
  workflowsPath: string;
}

let runtimeInstalled = false;
const TRACING_OFF: Tracing = {
  enabled: false,
  flush: async () => undefined,
  shutdown: async () => undefined,
};

export async function createWorker(opts: {
  registry: WorkerRegistry;
  logger: PlatformLogger;
  address: string;
  namespace: string;
  taskQueue: string;
  /** Tunables for tests and benchmarks. */
  overrides?: Partial<WorkerOptions>;
  /** When enabled, workflows run the traced bundle and activities continue the caller's trace. */
  tracing?: Tracing;
}): Promise<{ worker: Worker; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    // Core SDK logs go through the project's logger at warn and above.
    Runtime.install({
      logger: {
        log: (level, message, meta) => {
          if (level === 'WARN') opts.logger.warn(meta ?? {}, message);
          else if (level === 'ERROR') opts.logger.error(meta ?? {}, message);
        },
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: (message, meta) => opts.logger.warn(meta ?? {}, message),
        error: (message, meta) => opts.logger.error(meta ?? {}, message),
      },
    });
    runtimeInstalled = true;
  }
  const connection = await NativeConnection.connect({ address: opts.address });
  const { registry } = opts;
  const traced = opts.tracing?.enabled === true;
  const bundlePath = traced ? registry.tracedWorkflowBundlePath : registry.workflowBundlePath;
  // without a prebuilt bundle the SDK bundles the source at start, with the telemetry's workflow modules
  const prebuilt = fs.existsSync(bundlePath);
  const workflowSource = prebuilt
    ? { workflowBundle: { codePath: bundlePath } }
    : { workflowsPath: registry.workflowsPath };
  const telemetry = workerTelemetryOptions(opts.tracing ?? TRACING_OFF, { bundled: prebuilt });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: registry.activities,
    shutdownGraceTime: '8 seconds',
    ...workflowSource,
    ...telemetry,
    ...opts.overrides,
  });
  return { worker, connection };
}
