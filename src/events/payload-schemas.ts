import { z } from 'zod';
import { EVENT_DATA_SCHEMAS } from './payloads';

/**
 * The `data` of every event type in the catalogue (src/events/catalog.ts), read off what each
 * emitter puts in the event: the event catalogue is part of the API contract, so each type is an
 * OpenAPI webhook with its payload schema (src/http/openapi.ts) and the SDK's typed event union.
 * Objects are open (`z.object`): a field added later is not a breaking change for a receiver.
 */

const id = (description: string) => z.string().meta({ description });
const ms = (description: string) =>
  z
    .number()
    .int()
    .meta({ description: `${description}, in milliseconds` });
const json = z.record(z.string(), z.unknown());

/** `session.started` (sessions.service.ts). */
const SessionStartedData = z
  .object({
    sessionId: id('The session (`sess_…`)'),
    userId: z.string(),
    personaId: id('The persona (`persona_…`)'),
    testRunId: id('The test run that started the session, when one did').optional(),
  })
  .meta({ id: 'SessionStartedEventData' });

const toolBase = {
  sessionId: z.string(),
  toolId: id('The tool (`tool_…`)'),
  toolName: z.string(),
};

/** `tool.called` (tool-events.ts), written before the call starts. */
const ToolCalledData = z
  .object({ ...toolBase, arguments: json.meta({ description: 'The arguments the agent called it with' }) })
  .meta({ id: 'ToolCalledEventData' });

/** `tool.completed`. */
const ToolCompletedData = z
  .object({ ...toolBase, success: z.literal(true), duration: ms('How long the call took') })
  .meta({ id: 'ToolCompletedEventData' });

/** `tool.failed`. */
const ToolFailedData = z
  .object({
    ...toolBase,
    success: z.literal(false),
    error: z.string(),
    errorCode: z.string().optional().meta({ description: 'e.g. `RESPONSE_TOO_LARGE`' }),
    duration: ms('How long the call took'),
  })
  .meta({ id: 'ToolFailedEventData' });

const execution = {
  workflowId: id('The voice workflow (`wf_…`)'),
  executionId: id('The execution (`exec_…`)'),
  sessionId: z
    .string()
    .nullable()
    .optional()
    .meta({ description: 'The session that ran it (null: run through the API); absent in sandbox samples' }),
};

/** `workflow.started` (voice-workflows/execution-store.ts). */
const WorkflowStartedData = z
  .object({
    ...execution,
    version: z.number().int(),
    input: json.nullable(),
    match: z
      .object({ utterance: z.string(), command: z.string(), score: z.number() })
      .optional()
      .meta({ description: 'The voice command that triggered it, when one did' }),
  })
  .meta({ id: 'WorkflowStartedEventData' });

/** `workflow.completed`. */
const WorkflowCompletedData = z
  .object({
    ...execution,
    status: z.literal('completed'),
    duration: ms('From start to end'),
    stepsExecuted: z.number().int(),
  })
  .meta({ id: 'WorkflowCompletedEventData' });

/** `workflow.failed`. */
const WorkflowFailedData = z
  .object({
    ...execution,
    status: z.literal('failed'),
    error: z.string(),
    failedNodeId: z.string().nullable(),
    duration: ms('From start to the failure'),
    stepsExecuted: z.number().int(),
  })
  .meta({ id: 'WorkflowFailedEventData' });

/** `workflow.step.completed`. */
const WorkflowStepCompletedData = z
  .object({
    ...execution,
    nodeId: z.string(),
    nodeType: z.string(),
    status: z.string().optional().meta({ description: '`completed`; absent in sandbox samples' }),
    duration: ms('How long the step took'),
  })
  .meta({ id: 'WorkflowStepCompletedEventData' });

/** `activity.created` (activity-log/activities.service.ts): the activity as GET /activities/:id shows it. */
const ActivityCreatedData = z
  .object({
    id: id('The activity (`act_…`)'),
    type: z.string(),
    payload: json,
    userId: z.string().nullable(),
    sessionId: z.string().nullable(),
    personaId: z.string().nullable(),
    occurredAt: z.iso.datetime(),
  })
  .meta({ id: 'ActivityCreatedEventData' });

/** `test_run.completed` (agent-tests/run-results.ts). */
const TestRunCompletedData = z
  .object({
    runId: z.string(),
    personaId: z.string(),
    personaVersion: z.number().int().nullable(),
    status: z.enum(['passed', 'failed', 'cancelled']),
    passed: z.number().int(),
    failed: z.number().int(),
    total: z.number().int(),
    durationMs: z.number().int(),
  })
  .meta({ id: 'TestRunCompletedEventData' });

/** `persona.rolled_back` (personas/versions.service.ts). */
const PersonaRolledBackData = z
  .object({
    personaId: z.string(),
    fromVersion: z.number().int(),
    toVersion: z.number().int(),
    rolledBackAt: z.iso.datetime(),
  })
  .meta({ id: 'PersonaRolledBackEventData' });

const call = {
  callId: id('The call (`call_…`)'),
  sessionId: z.string().nullable(),
  direction: z.string().meta({ description: '`inbound` or `outbound`' }),
  from: z.string(),
  to: z.string(),
  status: z.string().meta({ description: 'The call status (`in-progress`, `completed`, `busy`, …)' }),
  endedReason: z.string().nullable(),
  durationS: z.number().int().nullable().meta({ description: 'In seconds, once ended' }),
};

/** `call.started` / `call.ended` (telephony/calls/call-steps.ts). */
const CallStartedData = z.object(call).meta({ id: 'CallStartedEventData' });
const CallEndedData = z.object(call).meta({ id: 'CallEndedEventData' });
/** `call.transferred`: the call and where it was put through to. */
const CallTransferredData = z
  .object({ ...call, destination: z.string().meta({ description: 'A phone number or SIP address' }) })
  .meta({ id: 'CallTransferredEventData' });

/** `webhook.test` (webhooks/webhook-test.service.ts). */
const WebhookTestData = z
  .object({ webhookId: z.string().optional(), message: z.string() })
  .meta({ id: 'WebhookTestEventData' });

/**
 * Each event type's `data` schema: the ones defined here, and those of src/events/payloads.ts
 * (`session.ended`, `session.analyzed`, `campaign.completed`, `knowledge.source.*`,
 * `webhook.disabled`). Keyed by string so a schema may come before its type is catalogued;
 * test/openapi-lint.unit.test.ts checks that every catalogued type has one.
 */
export const EVENT_PAYLOAD_SCHEMAS: Readonly<Record<string, z.ZodObject | undefined>> = {
  'session.started': SessionStartedData,
  'tool.called': ToolCalledData,
  'tool.completed': ToolCompletedData,
  'tool.failed': ToolFailedData,
  'workflow.started': WorkflowStartedData,
  'workflow.completed': WorkflowCompletedData,
  'workflow.failed': WorkflowFailedData,
  'workflow.step.completed': WorkflowStepCompletedData,
  'activity.created': ActivityCreatedData,
  'test_run.completed': TestRunCompletedData,
  'persona.rolled_back': PersonaRolledBackData,
  'call.started': CallStartedData,
  'call.ended': CallEndedData,
  'call.transferred': CallTransferredData,
  'webhook.test': WebhookTestData,
  ...EVENT_DATA_SCHEMAS,
};

/** Accepts any object: the `data` of a catalogued type with no schema yet (the test fails on it). */
export const UNDESCRIBED_EVENT_DATA = z.object({}).catchall(z.unknown());
