import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowFailedError } from '@temporalio/client';
import type { AppContext } from '../common/context';
import { newId } from '../common/ids';
import type { Owner } from '../common/owner';
import { notFound } from '../http/errors';
import { recordExecutionStart } from './execution-store';
import { type ExecutionView, executionView, workflowInputOf } from './execution-types';
import { startExecutionWorkflow } from './execution-workflows';
import { type WorkflowDefinition, WorkflowExecution } from './workflow.entity';
import type { ExecuteWorkflowInput, ListExecutionsInput } from './workflows.schemas';
import { findWorkflow } from './workflows.service';

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
  options: ExecuteWorkflowInput,
  match?: WorkflowExecution['match'],
): Promise<ExecutionAnswer> {
  if (options.sessionId) await ctx.references.session(em, owner, options.sessionId);
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
  options: ExecuteWorkflowInput,
): Promise<ExecutionAnswer> {
  return executeWorkflow(ctx, em, owner, await findWorkflow(em, owner, id), options);
}

export async function listExecutions(
  em: EntityManager,
  owner: Owner,
  workflowId: string,
  query: ListExecutionsInput,
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
