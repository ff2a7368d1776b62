import fs from 'node:fs';
import os from 'node:os';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Logger as PlatformLogger } from '../logging/logger';
import { workerTelemetryOptions } from '../telemetry/temporal';
import type { Tracing } from '../telemetry/tracing';
import type { DeploymentVersion } from './deployment';

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
  /** The pool's own worker options (a conversation's sticky queue timeout). */
  workerOptions?: Partial<WorkerOptions>;
}

let runtimeInstalled = false;
const TRACING_OFF: Tracing = {
  enabled: false,
  flush: async () => undefined,
  shutdown: async () => undefined,
};

interface WorkerOptionsIn {
  logger: PlatformLogger;
  address: string;
  namespace: string;
  /** Tunables for tests and benchmarks. */
  overrides?: Partial<WorkerOptions>;
  /** When enabled, workflows run the traced bundle and activities continue the caller's trace. */
  tracing?: Tracing;
  /**
   * The Worker Deployment version the workers belong to (versioning on): a workflow runs on the
   * version it is pinned to, or the current one; unset, the workers are unversioned.
   */
  deployment?: DeploymentVersion;
}

/** A worker for one task queue: `registry`'s workflows and activities (its own connection unless given one). */
export async function createWorker(
  opts: WorkerOptionsIn & { registry: WorkerRegistry; taskQueue: string; connection?: NativeConnection },
): Promise<{ worker: Worker; connection: NativeConnection }> {
  installRuntime(opts.logger);
  const connection = opts.connection ?? (await NativeConnection.connect({ address: opts.address }));
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
    ...(opts.deployment && {
      workerDeploymentOptions: {
        version: opts.deployment,
        useWorkerVersioning: true,
        // conversations declare PINNED themselves (workflows/voice-session.ts, phone-call.ts)
        defaultVersioningBehavior: 'AUTO_UPGRADE' as const,
      },
      identity: `${process.pid}@${os.hostname()}:${opts.deployment.buildId}`,
    }),
    ...workflowSource,
    ...telemetry,
    ...registry.workerOptions,
    ...opts.overrides,
  });
  return { worker, connection };
}

/**
 * A worker process's pools (docs/operations.md "Worker pools"): a worker for each task queue in
 * `pools`, all on one connection. When one cannot be made, those made are let go and the connection
 * closed.
 */
export async function createWorkerPools<P extends string>(
  opts: WorkerOptionsIn & { pools: { workload: P; taskQueue: string; registry: WorkerRegistry }[] },
): Promise<{ workers: { workload: P; taskQueue: string; worker: Worker }[]; connection: NativeConnection }> {
  installRuntime(opts.logger);
  const connection = await NativeConnection.connect({ address: opts.address });
  try {
    const workers = [];
    for (const pool of opts.pools) {
      const { worker } = await createWorker({ ...opts, ...pool, connection });
      workers.push({ workload: pool.workload, taskQueue: pool.taskQueue, worker });
    }
    return { workers, connection };
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
}

function installRuntime(logger: PlatformLogger): void {
  if (!runtimeInstalled) {
    // Core SDK logs go through the project's logger at warn and above.
    Runtime.install({
      logger: {
        log: (level, message, meta) => {
          if (level === 'WARN') logger.warn(meta ?? {}, message);
          else if (level === 'ERROR') logger.error(meta ?? {}, message);
        },
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: (message, meta) => logger.warn(meta ?? {}, message),
        error: (message, meta) => logger.error(meta ?? {}, message),
      },
    });
    runtimeInstalled = true;
  }
}

/**
 * A worker of activities only, on a task queue of this process's own (Temporal's worker-specific
 * task queue pattern): work that must run where a connection lives, such as a delivery sent down a
 * `vp listen` socket. Unversioned: the queue lives and dies with the process.
 */
export async function startActivityWorker(opts: {
  logger: PlatformLogger;
  address: string;
  namespace: string;
  taskQueue: string;
  activities: WorkerOptions['activities'];
}): Promise<{ stop(): Promise<void> }> {
  installRuntime(opts.logger);
  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: opts.activities,
  });
  const running = worker.run();
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch((error) =>
        opts.logger.warn({ err: error }, 'activity worker stopped with an error'),
      );
      await connection.close().catch(() => undefined);
    },
  };
}
