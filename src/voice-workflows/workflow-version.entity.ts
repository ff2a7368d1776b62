import { EntitySchema } from '@mikro-orm/core';
import type { GraphEdge, GraphNode } from './graph';
import type { WorkflowTrigger } from './workflow.entity';

/**
 * One version of a workflow's definition as it was saved (version 1 at creation, one more at every
 * update): the history the console shows and restores from. Immutable; deleted with its workflow.
 */
export class WorkflowVersion {
  workflowId!: string;
  version!: number;
  name!: string;
  description?: string | null;
  trigger!: WorkflowTrigger;
  nodes!: GraphNode[];
  edges!: GraphEdge[];
  createdAt: Date = new Date();
}

export const WorkflowVersionSchema = new EntitySchema<WorkflowVersion>({
  class: WorkflowVersion,
  tableName: 'workflow_versions',
  properties: {
    workflowId: { type: 'string', length: 40, primary: true },
    version: { type: 'integer', primary: true },
    name: { type: 'string', length: 100 },
    description: { type: 'text', nullable: true },
    trigger: { type: 'json' },
    nodes: { type: 'json' },
    edges: { type: 'json' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
