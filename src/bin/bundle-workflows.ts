import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

/** Prebuilds the workflow bundle for production workers (no webpack at worker start). */
async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows') });
  const out = path.resolve(__dirname, '../../dist/workflow-bundle.js');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, code);
  console.log(`workflow bundle written to ${out} (${(code.length / 1024).toFixed(0)} KiB)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
