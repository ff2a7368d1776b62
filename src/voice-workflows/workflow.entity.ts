import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties } from '../db/entity-properties';
import type { GraphEdge, GraphNode } from './graph';
import type { ExecutionOutput, StepRecord } from './interpreter';
import type { ExecutionStatus } from './statuses';

export interface WorkflowTrigger {
  type: 'voice_command' | 'manual';
  config: { command?: string };
}

/** A workflow definition (`wf_…`): trigger and graph; `version` increments on every update. */
export class WorkflowDefinition {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt' | 'description' | 'version';
  id: string = newId('wf');
  account!: string;
  environment!: Environment;
  name!: string;
  description?: string | null;
  trigger!: WorkflowTrigger;
  nodes!: GraphNode[];
  edges!: GraphEdge[];
  version = 1;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const WorkflowDefinitionSchema = new EntitySchema<WorkflowDefinition>({
  class: WorkflowDefinition,
  tableName: 'workflows',
  properties: {
    ...ownedResourceProperties(),
    name: { type: 'string', length: 100 },
    description: { type: 'text', nullable: true },
    trigger: { type: 'json' },
    nodes: { type: 'json' },
    edges: { type: 'json' },
    version: { type: 'integer' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

/**
 * One run of a workflow (`exec_…`, also its Temporal workflow id). `definition` is the graph as it
 * was at start (the version is pinned). The API writes the row (and `workflow.started`) before
 * starting the Temporal workflow; `workflowStartedAt` stays null until the workflow reports in, so
 * a row the API could not start (crash, Temporal down) is started later by the dispatcher.
 */
export class WorkflowExecution {
  [OptionalProps]?:
    | 'status'
    | 'output'
    | 'steps'
    | 'error'
    | 'sessionId'
    | 'currentNodes'
    | 'match'
    | 'workflowStartedAt'
    | 'startedAt'
    | 'completedAt'
    | 'durationMs';
  id!: string;
  account!: string;
  environment!: Environment;
  workflowId!: string;
  version!: number;
  definition!: { nodes: GraphNode[]; edges: GraphEdge[] };
  status: ExecutionStatus = 'running';
  input!: unknown;
  output?: ExecutionOutput | null;
  steps: StepRecord[] = [];
  error?: { nodeId: string; message: string } | null;
  sessionId?: string | null;
  currentNodes: string[] = [];
  /** How POST /workflows/trigger chose this workflow. */
  match?: { utterance: string; command: string; score: number } | null;
  workflowStartedAt?: Date | null;
  startedAt: Date = new Date();
  completedAt?: Date | null;
  durationMs?: number | null;
}

export const WorkflowExecutionSchema = new EntitySchema<WorkflowExecution>({
  class: WorkflowExecution,
  tableName: 'workflow_executions',
  properties: {
    ...ownedResourceProperties(),
    workflowId: { type: 'string', length: 40 },
    version: { type: 'integer' },
    definition: { type: 'json' },
    status: { type: 'string', length: 16 },
    input: { type: 'json', nullable: true },
    output: { type: 'json', nullable: true },
    steps: { type: 'json' },
    error: { type: 'json', nullable: true },
    sessionId: { type: 'string', length: 64, nullable: true },
    currentNodes: { type: 'json' },
    match: { type: 'json', nullable: true },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    startedAt: { type: 'Date', columnType: 'timestamptz' },
    completedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    durationMs: { type: 'integer', nullable: true },
  },
});

/**
 * The execution whose id is the next placeholder, as JSON (null if none): a subquery for a statement
 * that reads it with other rows (give the result to `em.map(WorkflowExecution, …)`).
 */
export const executionJsonSql = '(select to_jsonb(e) from workflow_executions e where e.id = ?)';
