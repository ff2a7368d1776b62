import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowFailedError } from '@temporalio/client';
import type { AppContext } from '../app/context';
import { newId } from '../common/ids';
import { findOwned, listOwned, type Owner } from '../common/owned';
import { ApiError, notFound, validationFailed } from '../http/errors';
import { McpServer } from '../mcp/mcp-server.entity';
import {
  type ExecutionView,
  executionView,
  recordExecutionStart,
  startExecutionWorkflow,
  workflowInputOf,
} from './executions';
import { graphProblems, type WorkflowGraph } from './graph';
import { interpretGraph, type StepRecord } from './interpreter';
import { matchCommand } from './matching';
import {
  type ExecutionStatus,
  WorkflowDefinition,
  WorkflowExecution,
  type WorkflowTrigger,
} from './workflow.entity';

export function workflowView(w: WorkflowDefinition) {
  return {
    id: w.id,
    name: w.name,
    description: w.description ?? null,
    trigger: w.trigger,
    nodes: w.nodes,
    edges: w.edges,
    version: w.version,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

const findWorkflow = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, WorkflowDefinition, owner, id, 'Workflow');

/** Every problem of a definition: the graph rules, and `mcp_call` servers that are not the caller's. */
async function definitionProblems(em: EntityManager, owner: Owner, graph: WorkflowGraph): Promise<string[]> {
  const problems = graphProblems(graph);
  const calls = graph.nodes
    .map((node, i) => ({ node, i }))
    .filter(({ node }) => node.type === 'mcp_call' && typeof node.config?.serverId === 'string');
  if (calls.length > 0) {
    const ids = [...new Set(calls.map(({ node }) => node.config?.serverId as string))];
    const owned = await em.find(
      McpServer,
      { id: { $in: ids }, account: owner.accountId, environment: owner.environment },
      { fields: ['id'] },
    );
    const known = new Set(owned.map((s) => s.id));
    for (const { node, i } of calls) {
      const serverId = node.config?.serverId as string;
      if (!known.has(serverId))
        problems.push(`nodes[${i}].config.serverId: no MCP server "${serverId}" of yours`);
    }
  }
  return problems;
}

async function checkDefinition(em: EntityManager, owner: Owner, graph: WorkflowGraph): Promise<void> {
  const problems = await definitionProblems(em, owner, graph);
  if (problems.length > 0) {
    throw validationFailed(problems, `The workflow definition is invalid: ${problems[0]}`);
  }
}

type DefinitionInput = {
  name: string;
  description?: string | null;
  trigger: WorkflowTrigger;
  nodes: WorkflowGraph['nodes'];
  edges: WorkflowGraph['edges'];
};

export async function createWorkflow(em: EntityManager, owner: Owner, input: DefinitionInput) {
  await checkDefinition(em, owner, input);
  const workflow = em.create(WorkflowDefinition, {
    account: owner.accountId,
    environment: owner.environment,
    name: input.name,
    description: input.description ?? null,
    trigger: input.trigger,
    nodes: input.nodes,
    edges: input.edges,
  });
  await em.flush();
  return workflowView(workflow);
}

export async function listWorkflows(
  em: EntityManager,
  owner: Owner,
  page: { limit: number; offset: number },
) {
  const { items, total } = await listOwned(em, WorkflowDefinition, owner, page);
  return { data: items.map(workflowView), total };
}

export async function getWorkflow(em: EntityManager, owner: Owner, id: string) {
  return workflowView(await findWorkflow(em, owner, id));
}

/** Applies any subset of fields; the resulting definition is validated whole; `version` + 1. */
export async function updateWorkflow(
  em: EntityManager,
  owner: Owner,
  id: string,
  changes: Partial<DefinitionInput>,
) {
  const workflow = await findWorkflow(em, owner, id);
  const next: DefinitionInput = {
    name: changes.name ?? workflow.name,
    description: changes.description !== undefined ? changes.description : workflow.description,
    trigger: changes.trigger ?? workflow.trigger,
    nodes: changes.nodes ?? workflow.nodes,
    edges: changes.edges ?? workflow.edges,
  };
  await checkDefinition(em, owner, next);
  em.assign(workflow, { ...next, version: workflow.version + 1, updatedAt: new Date() });
  await em.flush();
  return workflowView(workflow);
}

/** Deletes the definition and its history; executions still running finish unrecorded. */
export async function deleteWorkflow(em: EntityManager, owner: Owner, id: string) {
  const workflow = await findWorkflow(em, owner, id);
  await em.remove(workflow).flush();
  return { deleted: true as const, id };
}

export interface RunOptions {
  input?: Record<string, unknown>;
  sessionId?: string;
  wait: boolean;
  timeoutMs: number;
}

/** An execution's answer: the record, and whether it is still running (→ 202). */
export interface ExecutionAnswer {
  record: ExecutionView;
  running: boolean;
}

async function reload(ctx: AppContext, id: string): Promise<ExecutionView> {
  const row = await ctx.orm.em.fork().findOneOrFail(WorkflowExecution, { id });
  return executionView(row);
}

/**
 * Runs a workflow: the execution row and `workflow.started` are committed first (so nothing
 * acknowledged is lost), then the Temporal workflow starts with the definition pinned. With `wait`,
 * answers when it ends or after `timeoutMs` (then still running). When Temporal cannot be reached
 * the row stays unstarted and the dispatcher starts it once Temporal is back: 202, running.
 */
export async function executeWorkflow(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  workflow: WorkflowDefinition,
  options: RunOptions,
  match?: WorkflowExecution['match'],
): Promise<ExecutionAnswer> {
  const execution = em.create(
    WorkflowExecution,
    {
      id: newId('exec'),
      account: owner.accountId,
      environment: owner.environment,
      workflowId: workflow.id,
      version: workflow.version,
      definition: { nodes: workflow.nodes, edges: workflow.edges },
      input: options.input ?? {},
      sessionId: options.sessionId ?? null,
      match: match ?? null,
    },
    { persist: false },
  );
  recordExecutionStart(em, execution);
  await em.flush();
  const deadline = Date.now() + options.timeoutMs;
  const temporal = ctx.temporalEager ?? ctx.temporal;
  let handle: Awaited<ReturnType<typeof startExecutionWorkflow>>;
  try {
    handle = await temporal.withDeadline(Math.min(deadline, Date.now() + 10_000), () =>
      startExecutionWorkflow(temporal, ctx.config, workflowInputOf(execution), {
        eager: temporal === ctx.temporalEager,
      }),
    );
  } catch (error) {
    ctx.logger.warn(
      { err: error, executionId: execution.id },
      'could not start the execution now; the dispatcher will',
    );
    return { record: executionView(execution), running: true };
  }
  if (!options.wait) return { record: executionView(execution), running: true };
  try {
    const view = await ctx.temporal.withAbortSignal(
      AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      () => handle.result(),
    );
    return { record: view ?? (await reload(ctx, execution.id)), running: false };
  } catch (error) {
    if (error instanceof WorkflowFailedError) {
      const details = (error.cause as { details?: unknown[] } | undefined)?.details;
      const view = (details?.[0] as ExecutionView | undefined) ?? (await reload(ctx, execution.id));
      return { record: view, running: view.status === 'running' };
    }
    const view = await reload(ctx, execution.id); // timed out waiting: still running
    return { record: view, running: view.status === 'running' };
  }
}

export async function executeWorkflowById(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  options: RunOptions,
): Promise<ExecutionAnswer> {
  return executeWorkflow(ctx, em, owner, await findWorkflow(em, owner, id), options);
}

/** Picks the workflow whose voice command best matches the utterance, and runs it. */
export async function triggerWorkflow(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  body: RunOptions & { utterance: string },
) {
  const workflows = await em.find(
    WorkflowDefinition,
    { account: owner.accountId, environment: owner.environment },
    { orderBy: { createdAt: 'asc' } },
  );
  const commands = workflows
    .filter((w) => w.trigger.type === 'voice_command' && w.trigger.config.command)
    .map((w) => ({ item: w, command: w.trigger.config.command as string }));
  const outcome = matchCommand(body.utterance, commands);
  const describe = (c: { item: WorkflowDefinition; command: string; score: number }) => ({
    workflowId: c.item.id,
    name: c.item.name,
    command: c.command,
    score: c.score,
  });
  if (outcome.kind === 'none') {
    throw new ApiError(
      404,
      'NOT_FOUND',
      `No workflow's voice command matches "${body.utterance}"`,
      undefined,
      {
        candidates: outcome.candidates.map(describe),
      },
    );
  }
  if (outcome.kind === 'tie') {
    const names = outcome.tied.map((c) => `"${c.item.name}"`).join(', ');
    throw new ApiError(
      409,
      'CONFLICT',
      `The utterance matches several workflows equally well: ${names}`,
      undefined,
      {
        candidates: outcome.tied.map(describe),
      },
    );
  }
  const { best } = outcome;
  const match = { utterance: body.utterance, command: best.command, score: best.score };
  const answer = await executeWorkflow(ctx, em, owner, best.item, body, match);
  return {
    running: answer.running,
    record: { ...answer.record, match: { ...match, workflowName: best.item.name } },
  };
}

/**
 * A dry run: the same interpreter, in this process, with `mcp_call` and `llm_prompt` answered from
 * `mocks` (null when not mocked, with a warning). No side effects, no events, no history.
 */
export async function dryRunWorkflow(
  em: EntityManager,
  owner: Owner,
  id: string,
  body: { input?: Record<string, unknown>; mocks?: Record<string, unknown> },
) {
  const workflow = await findWorkflow(em, owner, id);
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

export async function listExecutions(
  em: EntityManager,
  owner: Owner,
  workflowId: string,
  query: { status?: ExecutionStatus; limit: number; offset: number },
) {
  await findWorkflow(em, owner, workflowId);
  const [rows, total] = await em.findAndCount(
    WorkflowExecution,
    {
      workflowId,
      account: owner.accountId,
      environment: owner.environment,
      ...(query.status ? { status: query.status } : {}),
    },
    { orderBy: { startedAt: 'desc', id: 'desc' }, limit: query.limit, offset: query.offset },
  );
  return { data: rows.map(executionView), total };
}

export async function getExecution(em: EntityManager, owner: Owner, workflowId: string, executionId: string) {
  const row = await em.findOne(WorkflowExecution, {
    id: executionId,
    workflowId,
    account: owner.accountId,
    environment: owner.environment,
  });
  if (!row) throw notFound('Execution');
  return executionView(row);
}
