import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import { VoiceCommandConfigSchema } from './command-parameters';
import { MATCH_THRESHOLD } from './matching';
import { NODE_TYPES } from './node-configs';
import { EXECUTION_STATUSES, STEP_STATUSES } from './statuses';

const NodeSchema = z
  .strictObject({
    id: z.string().min(1).max(64).meta({ example: 'lookup' }),
    type: z
      .string()
      .max(32)
      .meta({
        description: `One of ${NODE_TYPES.join(', ')} (docs/api-contract.md "Voice workflow graphs")`,
      }),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'WorkflowNode' });

const EdgeSchema = z
  .strictObject({
    sourceId: z.string().min(1).max(64),
    targetId: z.string().min(1).max(64),
    condition: z
      .union([z.enum(['true', 'false']), z.boolean()])
      .transform((c) => String(c) as 'true' | 'false')
      .optional()
      .meta({ description: 'Only on edges leaving a condition node: which outcome takes this edge' }),
  })
  .meta({ id: 'WorkflowEdge' });

const TriggerSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('voice_command'), config: VoiceCommandConfigSchema }),
    z.strictObject({
      type: z.literal('manual'),
      config: z.strictObject({}).default({}),
    }),
  ])
  .meta({
    id: 'WorkflowTrigger',
    description: '`voice_command` (matched by POST /workflows/trigger) or `manual` (run by id only)',
  });

const definition = {
  name: z.string().trim().min(1).max(100).meta({ example: 'Order status' }),
  description: z.string().max(2000).optional(),
  trigger: TriggerSchema,
  nodes: z.array(NodeSchema).max(100),
  edges: z.array(EdgeSchema).max(500),
};

export const CreateWorkflowBody = z.strictObject(definition).meta({ id: 'CreateWorkflowRequest' });
export type CreateWorkflowInput = z.infer<typeof CreateWorkflowBody>;

export const UpdateWorkflowBody = z
  .strictObject({
    name: definition.name.optional(),
    description: z.string().max(2000).nullable().optional(),
    trigger: TriggerSchema.optional(),
    nodes: definition.nodes.optional(),
    edges: definition.edges.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message: 'at least one field to change is required',
    path: ['body'],
  })
  .meta({
    id: 'UpdateWorkflowRequest',
    description: 'Any subset; the resulting definition is validated whole',
  });
export type UpdateWorkflowInput = z.infer<typeof UpdateWorkflowBody>;

export const WorkflowRecord = z
  .object({
    id: z.string().meta({ example: 'wf_…' }),
    name: z.string(),
    description: z.string().nullable(),
    trigger: z.object({ type: z.string(), config: z.record(z.string(), z.unknown()) }),
    nodes: z.array(NodeSchema),
    edges: z.array(
      z.object({ sourceId: z.string(), targetId: z.string(), condition: z.string().optional() }),
    ),
    version: z.number().int().meta({ description: 'Starts at 1; every update adds one' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Workflow' });

const runOptions = {
  sessionId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'One of your voice sessions (404 otherwise); carried into events' }),
  wait: z
    .boolean()
    .default(true)
    .meta({ description: 'Wait for the result (default) or answer 202 at once' }),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(30_000)
    .meta({ description: 'How long to wait; a run still going then is answered 202 with status running' }),
};

const inputSchema = z
  .record(z.string(), z.unknown())
  .optional()
  .meta({ description: 'Read as {{input.<path>}} and input.<path>; the start node’s result' });

export const ExecuteWorkflowBody = z
  .strictObject({ input: inputSchema, ...runOptions })
  .meta({ id: 'ExecuteWorkflowRequest' });
export type ExecuteWorkflowInput = z.infer<typeof ExecuteWorkflowBody>;

export const TriggerWorkflowBody = z
  .strictObject({
    utterance: z.string().trim().min(1).max(1000).meta({ example: 'can you check the status of my order' }),
    input: inputSchema,
    ...runOptions,
  })
  .meta({
    id: 'TriggerWorkflowRequest',
    description: `Runs the workflow whose voice_command best matches (score ≥ ${MATCH_THRESHOLD})`,
  });
export type TriggerWorkflowInput = z.infer<typeof TriggerWorkflowBody>;

export const DryRunBody = z
  .strictObject({
    input: inputSchema,
    mocks: z.record(z.string(), z.unknown()).optional().meta({
      description: 'Result of each mcp_call / llm_prompt node, by node id (unmocked ones give null)',
    }),
    nodes: definition.nodes.optional().meta({
      description: 'A draft graph to dry-run instead of the saved one (with `edges`; validated the same way)',
    }),
    edges: definition.edges.optional(),
  })
  .refine((b) => (b.nodes === undefined) === (b.edges === undefined), {
    message: 'a draft graph needs both nodes and edges',
    path: ['edges'],
  })
  .meta({ id: 'DryRunWorkflowRequest' });
export type DryRunInput = z.infer<typeof DryRunBody>;

export const StepSchema = z
  .object({
    nodeId: z.string(),
    type: z.string(),
    status: z.enum(STEP_STATUSES),
    startedAt: timestamp().nullable(),
    completedAt: timestamp().nullable(),
    durationMs: z.number().int().nullable(),
    result: z.unknown().optional(),
    error: z.string().optional(),
    mocked: z.boolean().optional().meta({ description: 'Dry runs: the result came from `mocks`' }),
  })
  .meta({ id: 'WorkflowStep' });

const OutputSchema = z.object({
  speech: z.array(z.string()).meta({ description: 'Rendered text of each speak node, in order' }),
  results: z.record(z.string(), z.unknown()).meta({ description: 'Each completed node’s result' }),
});

const MatchSchema = z.object({
  utterance: z.string(),
  command: z.string(),
  score: z.number().meta({ description: '0 to 1' }),
});

export const ExecutionRecord = z
  .object({
    id: z.string().meta({ example: 'exec_…', description: 'Also the Temporal workflow id' }),
    workflowId: z.string(),
    version: z.number().int().meta({ description: 'The definition version this run is pinned to' }),
    status: z.enum(EXECUTION_STATUSES),
    sessionId: z.string().nullable(),
    input: z.unknown(),
    output: OutputSchema.nullable(),
    steps: z.array(StepSchema),
    currentNodes: z.array(z.string()).meta({ description: 'Nodes running now (while running)' }),
    error: z.object({ nodeId: z.string(), message: z.string() }).nullable(),
    startedAt: timestamp(),
    completedAt: timestamp().nullable(),
    durationMs: z.number().int().nullable(),
    match: MatchSchema.optional(),
  })
  .meta({ id: 'WorkflowExecution' });

export const DryRunRecord = z
  .object({
    dryRun: z.literal(true),
    workflowId: z.string(),
    version: z.number().int(),
    status: z.enum(EXECUTION_STATUSES).exclude(['running']),
    input: z.unknown(),
    output: OutputSchema,
    steps: z.array(StepSchema),
    error: z.object({ nodeId: z.string(), message: z.string() }).nullable(),
    warnings: z.array(z.string()),
    durationMs: z.number().int(),
  })
  .meta({ id: 'WorkflowDryRun' });

export const TriggeredRecord = ExecutionRecord.extend({
  match: MatchSchema.extend({ workflowName: z.string() }),
}).meta({
  id: 'TriggeredWorkflowExecution',
});

export const WorkflowVersionRecord = WorkflowRecord.pick({
  version: true,
  name: true,
  description: true,
  trigger: true,
  nodes: true,
  edges: true,
})
  .extend({ createdAt: timestamp().meta({ description: 'When this version was saved' }) })
  .meta({ id: 'WorkflowVersion' });

export const WorkflowIdParams = z.object({ id: z.string().max(64) });
export const ExecutionIdParams = z.object({ id: z.string().max(64), executionId: z.string().max(64) });
export const ListWorkflowsQuery = z.strictObject({ ...paginationQuery });
export const ListVersionsQuery = z.strictObject({ ...paginationQuery });
export const ListExecutionsQuery = z.strictObject({
  status: z.enum(EXECUTION_STATUSES).optional(),
  ...paginationQuery,
});
export type ListExecutionsInput = z.infer<typeof ListExecutionsQuery>;

export const WorkflowEnvelope = envelopeOf(WorkflowRecord);
export const WorkflowList = pagedEnvelopeOf(WorkflowRecord);
export const DeletedWorkflow = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));
export const ExecutionEnvelope = envelopeOf(ExecutionRecord);
export const ExecutionList = pagedEnvelopeOf(ExecutionRecord);
export const WorkflowVersionList = pagedEnvelopeOf(WorkflowVersionRecord);
export const DryRunEnvelope = envelopeOf(DryRunRecord);
export const TriggeredEnvelope = envelopeOf(TriggeredRecord);
