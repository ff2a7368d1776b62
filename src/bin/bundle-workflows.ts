import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { poolWorkflowsPath, workflowBundlePath } from '../app/worker-registry';
import { WORKFLOW_TRACING_MODULE } from '../telemetry/temporal';
import { writeBuildInfo } from '../temporal/deployment';
import { WORKLOADS } from '../temporal/task-queues';

/**
 * Prebuilds each pool's workflow bundles, and the shared queue's (no webpack at worker start): the plain one, and the traced
 * one (with the OpenTelemetry workflow interceptors) that workers use when tracing is on. They go
 * beside the compiled code (dist/), or into `WORKFLOW_BUNDLE_DIR` when it is set (the tests').
 */
export async function bundleWorkflows(
  opts: { dir?: string; traced?: boolean; log?: (line: string) => void } = {},
): Promise<void> {
  const dir = opts.dir ?? process.env.WORKFLOW_BUNDLE_DIR ?? path.resolve(__dirname, '../../dist');
  const log = opts.log ?? console.log;
  for (const workload of [...WORKLOADS, 'shared' as const]) {
    for (const traced of opts.traced === false ? [false] : [false, true]) {
      const { code } = await bundleWorkflowCode({
        workflowsPath: poolWorkflowsPath(workload),
        workflowInterceptorModules: traced ? [WORKFLOW_TRACING_MODULE] : [],
        logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: (m) => log(m) },
      });
      const out = workflowBundlePath(workload, traced, dir);
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, code);
      log(`workflow bundle written to ${out} (${(code.length / 1024).toFixed(0)} KiB)`);
    }
  }
}

if (require.main === module) {
  // the build's commit, for the workers' default build id (src/temporal/deployment.ts)
  writeBuildInfo(path.resolve(__dirname, '../../dist'));
  bundleWorkflows().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
