import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from 'knex';
import { derivedId } from '../common/ids';
import type { EventType } from '../events/catalog';
import {
  type EmitEventInput,
  type EventRow,
  emitEvent,
  insertEventsSql,
  eventRow as rowOf,
} from '../events/emit';
import type { ExecutionRef } from './execution-types';
import type { StepRecord, Trace } from './interpreter';
import { WorkflowExecution } from './workflow.entity';

/** Writes the execution row and its `workflow.started` event (the caller flushes). */
export function recordExecutionStart(em: EntityManager, execution: WorkflowExecution): void {
  em.persist(execution);
  emitEvent(em, startedEvent(execution));
}

/** An execution's `workflow.started`. */
function startedEvent(
  execution: Pick<
    WorkflowExecution,
    'account' | 'environment' | 'workflowId' | 'id' | 'version' | 'sessionId' | 'input' | 'match'
  >,
): EmitEventInput {
  return {
    accountId: execution.account,
    environment: execution.environment,
    type: 'workflow.started',
    personaId: null,
    data: {
      workflowId: execution.workflowId,
      executionId: execution.id,
      version: execution.version,
      sessionId: execution.sessionId ?? null,
      input: execution.input ?? null,
      ...(execution.match ? { match: execution.match } : {}),
    },
  };
}

function stepEvent(ref: ExecutionRef, step: StepRecord): EventInput {
  return {
    // derived: a replayed or retried recording inserts nothing twice
    id: derivedId('evt', ref.executionId, 'step', step.nodeId),
    accountId: ref.accountId,
    environment: ref.environment,
    type: 'workflow.step.completed',
    personaId: null,
    at: step.completedAt ? new Date(step.completedAt) : undefined,
    data: {
      workflowId: ref.workflowId,
      executionId: ref.executionId,
      sessionId: ref.sessionId,
      nodeId: step.nodeId,
      nodeType: step.type,
      status: step.status,
      duration: step.durationMs ?? 0,
    },
  };
}

type EventInput = EmitEventInput & { id: string; at?: Date };
/** Step and run events carry no persona: every webhook of the account may receive them. */
const eventRow = (e: EventInput): EventRow => ({ ...rowOf(e), personaId: null });
const completedSteps = (steps: StepRecord[]) => steps.filter((s) => s.status === 'completed');

/**
 * Records the steps settled so far and the nodes running now, and emits `workflow.step.completed`
 * for the newly completed ones: one statement. Idempotent (a replayed activity changes nothing).
 */
export async function recordProgress(
  knex: Knex,
  input: ExecutionRef & { steps: StepRecord[]; newSteps: StepRecord[]; currentNodes: string[] },
): Promise<void> {
  const events = completedSteps(input.newSteps).map((s) => eventRow(stepEvent(input, s)));
  // Recordings may run concurrently (parallel branches): an older, shorter trace never overwrites a
  // newer one, but its events are still inserted while the execution runs.
  const insert = insertEventsSql(
    input,
    events,
    `exists (select 1 from workflow_executions where id = ? and status = 'running')`,
    [input.executionId],
  );
  await knex.raw(
    `with updated as (
       update workflow_executions set steps = ?::jsonb, current_nodes = ?::jsonb,
         workflow_started_at = coalesce(workflow_started_at, now())
       where id = ? and status = 'running' and jsonb_array_length(steps) <= ? returning id
     )
     ${insert.sql}`,
    [
      JSON.stringify(input.steps),
      JSON.stringify(input.currentNodes),
      input.executionId,
      input.steps.length,
      ...insert.bindings,
    ],
  );
}

/**
 * The events that close an execution: `workflow.step.completed` for the completed steps among
 * `newSteps`, then `workflow.completed` or `workflow.failed` (ids derived from the execution).
 */
export function finishEvents(
  ref: ExecutionRef,
  trace: Trace,
  newSteps: StepRecord[],
  completedAt: Date,
  durationMs: number,
): EventInput[] {
  const stepsExecuted = completedSteps(trace.steps).length;
  const base = { workflowId: ref.workflowId, executionId: ref.executionId, sessionId: ref.sessionId };
  const finalType: EventType = trace.status === 'completed' ? 'workflow.completed' : 'workflow.failed';
  return [
    ...completedSteps(newSteps).map((s) => stepEvent(ref, s)),
    {
      id: derivedId('evt', ref.executionId, finalType),
      accountId: ref.accountId,
      environment: ref.environment,
      type: finalType,
      personaId: null,
      at: completedAt,
      data:
        trace.status === 'completed'
          ? { ...base, status: 'completed', duration: durationMs, stepsExecuted }
          : {
              ...base,
              status: 'failed',
              error: trace.error?.message ?? 'failed',
              failedNodeId: trace.error?.nodeId ?? null,
              duration: durationMs,
              stepsExecuted,
            },
    },
  ];
}

/**
 * An execution that ran to its end before anything was written (a graph without side effects,
 * interpreted at once), as plain data: it travels with the turn that ran it (a Workflow Update's
 * payload) and is written by the statement that records the turn (finishedExecutionCte).
 */
export interface FinishedExecution {
  execution: Pick<
    WorkflowExecution,
    'id' | 'account' | 'environment' | 'workflowId' | 'version' | 'definition' | 'input' | 'match'
  > & { sessionId: string | null; startedAt: string; workflowStartedAt: string | null };
  trace: Trace;
  completedAt: string;
}

/** Closes an interpreted execution in memory (status, output, timing) and answers it as data. */
export function finishedExecution(execution: WorkflowExecution, trace: Trace): FinishedExecution {
  const completedAt = new Date();
  const durationMs = Math.max(0, completedAt.getTime() - execution.startedAt.getTime());
  Object.assign(execution, {
    status: trace.status,
    output: trace.output,
    steps: trace.steps,
    error: trace.error ?? null,
    currentNodes: [],
    completedAt,
    durationMs,
  });
  const { id, account, environment, workflowId, version, definition, input, match } = execution;
  return {
    execution: {
      ...{ id, account, environment, workflowId, version, definition, input, match },
      sessionId: execution.sessionId ?? null,
      startedAt: execution.startedAt.toISOString(),
      workflowStartedAt: execution.workflowStartedAt?.toISOString() ?? null,
    },
    trace,
    completedAt: completedAt.toISOString(),
  };
}

/**
 * A finished execution as CTEs for the caller's statement (a voice command's turn records the
 * execution, its events and the turn at once): `finished` inserts the row, finished, and, if it was
 * new, `workflow.started`, its step events and the final event.
 */
export function finishedExecutionCte({ execution, trace, completedAt: at }: FinishedExecution): {
  sql: string;
  bindings: unknown[];
} {
  const completedAt = new Date(at);
  const durationMs = Math.max(0, completedAt.getTime() - new Date(execution.startedAt).getTime());
  const ref: ExecutionRef = {
    executionId: execution.id,
    workflowId: execution.workflowId,
    accountId: execution.account,
    environment: execution.environment,
    sessionId: execution.sessionId,
  };
  const started = eventRow({ ...startedEvent(execution), id: derivedId('evt', execution.id, 'started') });
  const events = [started, ...finishEvents(ref, trace, trace.steps, completedAt, durationMs).map(eventRow)];
  const insert = insertEventsSql(ref, events, 'exists (select 1 from finished)');
  const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  return {
    sql: `finished as (
        insert into workflow_executions (id, account_id, environment, workflow_id, version, definition,
          status, input, output, steps, error, session_id, current_nodes, match, workflow_started_at,
          started_at, completed_at, duration_ms)
        values (?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?, '[]'::jsonb, ?::jsonb, ?, ?, ?, ?)
        on conflict (id) do nothing returning id
      ), finished_events as (${insert.sql})`,
    bindings: [
      execution.id,
      execution.account,
      execution.environment,
      execution.workflowId,
      execution.version,
      JSON.stringify(execution.definition),
      trace.status,
      json(execution.input),
      json(trace.output),
      JSON.stringify(trace.steps),
      json(trace.error),
      execution.sessionId,
      json(execution.match),
      execution.workflowStartedAt,
      execution.startedAt,
      completedAt,
      durationMs,
      ...insert.bindings,
    ],
  };
}

/**
 * Stores the final trace and emits the last step events and `workflow.completed` or
 * `workflow.failed`, in one statement, once: a repeat (after a worker crash) finds the row closed
 * and just returns it.
 */
export async function finishExecution(
  em: EntityManager,
  input: ExecutionRef & { startedAt: string; trace: Trace; newSteps: StepRecord[] },
): Promise<WorkflowExecution | null> {
  const { trace } = input;
  const completedAt = new Date();
  const durationMs = Math.max(0, completedAt.getTime() - new Date(input.startedAt).getTime());
  const events = finishEvents(input, trace, input.newSteps, completedAt, durationMs).map(eventRow);
  const insert = insertEventsSql(input, events, 'exists (select 1 from updated)');
  const knex = em.getConnection().getKnex();
  const { rows } = await knex.raw<{ rows: Record<string, unknown>[] }>(
    `with updated as (
       update workflow_executions set status = ?, output = ?::jsonb, steps = ?::jsonb, error = ?::jsonb,
         current_nodes = '[]'::jsonb, completed_at = ?, duration_ms = ?,
         workflow_started_at = coalesce(workflow_started_at, now())
       where id = ? and status = 'running' returning *
     ), inserted as (${insert.sql})
     select * from updated`,
    [
      trace.status,
      JSON.stringify(trace.output),
      JSON.stringify(trace.steps),
      trace.error ? JSON.stringify(trace.error) : null,
      completedAt,
      durationMs,
      input.executionId,
      ...insert.bindings,
    ],
  );
  const fork = em.fork();
  if (rows[0]) return fork.map(WorkflowExecution, rows[0]);
  return fork.findOne(WorkflowExecution, { id: input.executionId }); // finished before (a repeat)
}

/** The steps an execution has settled so far (its progress, as the running workflow records it). */
export async function executionSteps(knex: Knex, executionId: string): Promise<StepRecord[]> {
  const [row] = await knex('workflow_executions').select('steps').where({ id: executionId });
  return (row?.steps ?? []) as StepRecord[];
}
