import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { validationFailed } from '../http/errors';
import { interpretGraph, type StepRecord } from './interpreter';
import type { DryRunInput } from './workflows.schemas';
import { definitionProblems, findWorkflow } from './workflows.service';

/**
 * A dry run: the same interpreter, in this process, with `mcp_call` and `llm_prompt` answered from
 * `mocks` (null when not mocked, with a warning). No side effects, no events, no history. With
 * `nodes` and `edges`, the draft graph they make is run instead of the saved one.
 */
export async function dryRunWorkflow(em: EntityManager, owner: Owner, id: string, body: DryRunInput) {
  const saved = await findWorkflow(em, owner, id);
  // a draft graph from the builder, or the saved one
  const workflow = { ...saved, nodes: body.nodes ?? saved.nodes, edges: body.edges ?? saved.edges };
  const problems = await definitionProblems(em, owner, workflow);
  const mocks = body.mocks ?? {};
  const byId = new Map(workflow.nodes.map((n) => [n.id, n]));
  for (const nodeId of Object.keys(mocks)) {
    const node = byId.get(nodeId);
    if (!node) problems.push(`mocks.${nodeId}: no node "${nodeId}"`);
    else if (node.type !== 'mcp_call' && node.type !== 'llm_prompt') {
      problems.push(`mocks.${nodeId}: only mcp_call and llm_prompt nodes take mocks (this is ${node.type})`);
    }
  }
  if (problems.length > 0) throw validationFailed(problems, `Cannot dry-run: ${problems[0]}`);

  const warnings: string[] = [];
  const mocked = (nodeId: string, type: string) => {
    if (Object.hasOwn(mocks, nodeId)) return { result: mocks[nodeId] };
    warnings.push(`${nodeId}: ${type} node without a mock; its result is null`);
    return { result: null };
  };
  const started = performance.now();
  const input = body.input ?? {};
  const trace = await interpretGraph(workflow, input, {
    now: () => Date.now(),
    callTool: async (node) => mocked(node.id, 'mcp_call'),
    prompt: async (node) => mocked(node.id, 'llm_prompt'),
  });
  const steps = trace.steps.map((s: StepRecord) =>
    s.type === 'mcp_call' || s.type === 'llm_prompt'
      ? { ...s, mocked: s.status === 'completed' && Object.hasOwn(mocks, s.nodeId) }
      : s,
  );
  return {
    dryRun: true as const,
    workflowId: workflow.id,
    version: workflow.version,
    status: trace.status,
    input,
    output: trace.output,
    steps,
    error: trace.error ?? null,
    warnings,
    durationMs: Math.round(performance.now() - started),
  };
}
