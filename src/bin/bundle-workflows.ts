import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_TRACING_MODULE } from '../telemetry/temporal';

/**
 * Prebuilds the workflow bundles for production workers (no webpack at worker start): the plain one,
 * and the traced one (with the OpenTelemetry workflow interceptors) that workers use when tracing is on.
 */
async function main(): Promise<void> {
  const workflowsPath = require.resolve('../../workflows');
  const bundles = [
    { file: 'workflow-bundle.js', workflowInterceptorModules: [] },
    { file: 'workflow-bundle-traced.js', workflowInterceptorModules: [WORKFLOW_TRACING_MODULE] },
  ];
  for (const { file, workflowInterceptorModules } of bundles) {
    const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules });
    const out = path.resolve(__dirname, '../../dist', file);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, code);
    console.log(`workflow bundle written to ${out} (${(code.length / 1024).toFixed(0)} KiB)`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
