import fs from 'node:fs';
import { Worker as WorkerThread } from 'node:worker_threads';
import {
  type CompiledWorkerOptions,
  type Logger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import { ThreadedVMWorkflowCreator, WorkerThreadClient } from '@temporalio/worker/lib/workflow/threaded-vm';
import type { WorkflowBundleWithSourceMapAndFilename } from '@temporalio/worker/lib/workflow/workflow-worker-thread/input';
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

/**
 * The SDK's Worker without the isolate execution timeout. With a timeout, every call into a workflow's
 * V8 context (several per activation) starts and joins a watchdog thread (Node's `vm` `timeout`): about
 * 0.3 ms idle, and several ms on a busy 2-core machine, where the new thread waits for a core while the
 * workflow thread waits for it. The timeout only guards against workflow code that never yields; the
 * workflow code here is the platform's own and every loop in it is bounded (voice graphs are acyclic and
 * each node runs once). `npm run bench:sessions` measures both in the same run (docs/performance.md "bench:sessions").
 * `createWorker({ isolateWatchdog: true })` brings the SDK's watchdog back.
 */
export class PlatformWorker extends Worker {
  /** Whether workflow threads keep the SDK's promise stack traces (see createWorkflowThreads). */
  protected static workflowStackTraces = false;

  protected static override createWorkflowCreator(
    workflowBundle: WorkflowBundleWithSourceMapAndFilename,
    compiledOptions: CompiledWorkerOptions,
    logger: Logger,
  ) {
    // undefined: Node's vm runs the calls without a watchdog
    const options = { ...compiledOptions, isolateExecutionTimeoutMs: undefined as unknown as number };
    // biome-ignore lint/complexity/noThisInStatic: the subclass (PlatformWorkerWithStackTraces) sets it
    if (options.debugMode || this.workflowStackTraces) {
      return Worker.createWorkflowCreator(workflowBundle, options, logger);
    }
    return createWorkflowThreads(workflowBundle, options, logger);
  }
}

/** PlatformWorker whose workflow threads keep the SDK's promise stack traces (`TEMPORAL_STACK_TRACES=on`). */
export class PlatformWorkerWithStackTraces extends PlatformWorker {
  protected static override workflowStackTraces = true;
}

/**
 * The SDK's workflow threads (ThreadedVMWorkflowCreator.create), except that each thread skips the
 * SDK's promise hook. That hook captures and source-maps a stack trace for every promise created in
 * workflow code (temporalio/sdk-typescript#1587): about half of the workflow thread's CPU per turn in
 * bench:sessions. Without it the `__stack_trace` query (the Web UI's "Call Stack" tab) answers that
 * stack traces are not enabled on this worker; everything else (errors with source-mapped stacks,
 * queries, replay) is unchanged. `TEMPORAL_STACK_TRACES=on` keeps the hook.
 */
async function createWorkflowThreads(
  workflowBundle: WorkflowBundleWithSourceMapAndFilename,
  options: CompiledWorkerOptions,
  logger: Logger,
): Promise<ThreadedVMWorkflowCreator> {
  const sdkThread = require.resolve('@temporalio/worker/lib/workflow/workflow-worker-thread');
  const vmShared = require.resolve('@temporalio/worker/lib/workflow/vm-shared');
  const entry = `
    const { globalHandlers } = require(${JSON.stringify(vmShared)});
    globalHandlers.setPromiseHook = () => {};
    require(${JSON.stringify(sdkThread)});
  `;
  const { patchActivationCallback } = options;
  const clients = Array.from(
    { length: options.workflowThreadPoolSize },
    () => new WorkerThreadClient(new WorkerThread(entry, { eval: true }), logger, patchActivationCallback),
  );
  await Promise.all(
    clients.map((client) =>
      client.send({
        type: 'init',
        workflowBundle,
        isolateExecutionTimeoutMs: options.isolateExecutionTimeoutMs,
        reuseV8Context: options.reuseV8Context ?? true,
        registeredActivityNames: new Set(options.activities.keys()),
        hasPatchActivationCallback: patchActivationCallback !== undefined,
      }),
    ),
  );
  return new ThreadedVMWorkflowCreator(clients);
}

export async function createWorker(opts: {
  registry: WorkerRegistry;
  logger: PlatformLogger;
  /** TEMPORAL_STACK_TRACES: workflow threads keep promise stack traces (the Web UI's Call Stack). */
  stackTraces: boolean;
  address: string;
  namespace: string;
  taskQueue: string;
  /** Tunables for tests and benchmarks. */
  overrides?: Partial<WorkerOptions>;
  /** The SDK's isolate execution timeout (a watchdog thread per call into a workflow), off by default. */
  isolateWatchdog?: boolean;
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
  const WorkerClass = opts.isolateWatchdog
    ? Worker
    : opts.stackTraces
      ? PlatformWorkerWithStackTraces
      : PlatformWorker;
  const worker = await WorkerClass.create({
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
