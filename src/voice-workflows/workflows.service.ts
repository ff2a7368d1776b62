import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { Page } from '../common/owned';
import { deleteOwned, findOwned, listOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import { conflict, validationFailed } from '../http/errors';
import { McpServer } from '../mcp';
import { graphProblems, type WorkflowGraph } from './graph';
import { WorkflowDefinition } from './workflow.entity';
import { WorkflowVersion } from './workflow-version.entity';
import type { CreateWorkflowInput, UpdateWorkflowInput } from './workflows.schemas';

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

export const findWorkflow = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, WorkflowDefinition, owner, id, 'Workflow');

/** Every problem of a definition: the graph rules, and `mcp_call` servers that are not the caller's. */
export async function definitionProblems(
  em: EntityManager,
  owner: Owner,
  graph: WorkflowGraph,
): Promise<string[]> {
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

/** Keeps the workflow's definition as its current version; written by the flush that saves it. */
function recordVersion(em: EntityManager, w: WorkflowDefinition): void {
  em.create(WorkflowVersion, {
    workflowId: w.id,
    version: w.version,
    name: w.name,
    description: w.description ?? null,
    trigger: w.trigger,
    nodes: w.nodes,
    edges: w.edges,
    createdAt: w.updatedAt,
  });
}

export async function createWorkflow(em: EntityManager, owner: Owner, input: CreateWorkflowInput) {
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
  recordVersion(em, workflow);
  await em.flush();
  return workflowView(workflow);
}

export async function listWorkflows(em: EntityManager, owner: Owner, page: Page) {
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
  changes: UpdateWorkflowInput,
) {
  const workflow = await findWorkflow(em, owner, id);
  const next = {
    name: changes.name ?? workflow.name,
    description: changes.description !== undefined ? changes.description : workflow.description,
    trigger: changes.trigger ?? workflow.trigger,
    nodes: changes.nodes ?? workflow.nodes,
    edges: changes.edges ?? workflow.edges,
  };
  await checkDefinition(em, owner, next);
  em.assign(workflow, { ...next, version: workflow.version + 1, updatedAt: new Date() });
  recordVersion(em, workflow);
  try {
    await em.flush();
  } catch (error) {
    // another update saved this version number first: this one changed nothing
    if (error instanceof UniqueConstraintViolationException) {
      throw conflict('The workflow was updated at the same time; load it again and retry');
    }
    throw error;
  }
  return workflowView(workflow);
}

/** Deletes the definition and its history; executions still running finish unrecorded. */
export async function deleteWorkflow(em: EntityManager, owner: Owner, id: string) {
  await deleteOwned(em, WorkflowDefinition, owner, id, 'Workflow');
  return { deleted: true as const, id };
}
