import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import { ToolErrorCodeSchema } from '../tools';
import { SESSION_END_REASONS, SESSION_STATUSES, TURN_ROUTES } from './statuses';

export const SessionIdParams = z.object({ id: z.string().min(1).max(64) });

export const StartSessionBody = z
  .strictObject({
    personaId: z.string().regex(/^persona_[A-Za-z0-9]{1,56}$/, 'must be a persona id (persona_…)'),
    personaVersion: z.number().int().min(1).max(1_000_000).optional().meta({
      description:
        'An approved version to run (GET /api/v1/developers/personas/:id/versions). Default: the live version with a `pk_live_` key (naming another → 409), the working draft with a `pk_test_` key',
    }),
    userId: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .meta({ description: 'Your id for the caller; their activities feed the agent’s context' }),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .refine((m) => m === undefined || JSON.stringify(m).length <= 8192, 'must be at most 8 KiB as JSON')
      .meta({ description: 'Anything you want to keep with the session (at most 8 KiB)' }),
    recording: z.boolean().optional().meta({
      description:
        "Keep each turn's caller and reply audio (MP3, GET /sessions/:id/turns/:index/audio) for RECORDING_RETENTION_DAYS; default: the persona's `behaviors.record_calls`, else off",
    }),
  })
  .meta({ id: 'StartSessionRequest' });
export type StartSessionInput = z.infer<typeof StartSessionBody>;

export const TurnBody = z
  .strictObject({
    text: z.string().trim().min(1).max(2000).meta({ description: 'What the caller said (transcribed)' }),
    audio: z
      .boolean()
      .optional()
      .meta({ description: 'true: the reply also comes as speech in the persona’s voice' }),
  })
  .meta({ id: 'TurnRequest' });
export type TurnInput = z.infer<typeof TurnBody>;

const isoDateTime = () =>
  z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2026-11-23T10:00:00Z' });

export const ListSessionsQuery = z.strictObject({
  status: z.enum(SESSION_STATUSES).optional(),
  personaId: z.string().max(64).optional(),
  userId: z.string().max(128).optional(),
  from: isoDateTime().optional().meta({ description: 'Started at or after (inclusive)' }),
  to: isoDateTime().optional().meta({ description: 'Started at or before (inclusive)' }),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Sessions with a turn whose words or reply contain this text (case-insensitive)' }),
  includeTestRuns: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .meta({
      description:
        '`true`: the sessions of agent-test runs too (`testRunId` set), which the list leaves out by default',
    }),
  ...paginationQuery,
});
export type ListSessionsInput = z.infer<typeof ListSessionsQuery>;

const Action = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('tool'),
    tool: z.string().meta({ description: 'The function name the model called' }),
    toolId: z
      .string()
      .meta({ description: '`tool_…` for a custom tool, `<mcp server id>/<tool name>` for an MCP tool' }),
    arguments: z.record(z.string(), z.unknown()),
    success: z.boolean(),
    result: z.unknown().optional(),
    error: z.string().optional(),
    errorCode: ToolErrorCodeSchema.optional(),
    statusCode: z.number().int().optional(),
    durationMs: z.number(),
  }),
  z.object({
    type: z.literal('workflow'),
    workflowId: z.string(),
    workflowName: z.string(),
    executionId: z.string().nullable().meta({
      description: 'GET /workflows/:workflowId/executions/:executionId; null while the command awaits input',
    }),
    status: z
      .string()
      .meta({ description: '`completed`, `failed`, or `awaiting_input` (a parameter was asked for)' }),
    durationMs: z.number(),
    parameters: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .optional()
      .meta({ description: 'A command that takes parameters: the values it was given (so far)' }),
    missing: z
      .array(z.string())
      .optional()
      .meta({ description: '`awaiting_input`: the parameters asked for, given by the next turn' }),
  }),
  z.object({
    type: z.literal('knowledge'),
    query: z.string().meta({ description: 'What was searched: what the caller said' }),
    chunks: z
      .array(
        z.object({
          baseId: z.string(),
          sourceId: z.string(),
          sourceName: z.string(),
          ordinal: z.number().int(),
          heading: z.string().nullable(),
          score: z.number(),
        }),
      )
      .meta({ description: 'The chunks given to the model, best first: what the answer rested on' }),
    durationMs: z.number(),
    timedOut: z
      .boolean()
      .optional()
      .meta({ description: 'Past KNOWLEDGE_TURN_BUDGET_MS (or failed): the turn went on without them' }),
  }),
]);

export const TurnView = z
  .object({
    index: z.number().int(),
    text: z.string(),
    reply: z.object({
      text: z.string(),
      audioUrl: z.string().optional().meta({ description: 'With `audio: true`: `data:audio/mpeg;base64,…`' }),
    }),
    route: z.enum(TURN_ROUTES).meta({
      description:
        '`workflow` (a voice command matched), `llm`, `refusal` (out-of-scope topic) or `fallback` (no LLM configured)',
    }),
    actions: z.array(Action),
    error: z
      .string()
      .nullable()
      .meta({ description: 'What went wrong (the reply is then a spoken fallback)' }),
    latencyMs: z.number(),
    interrupted: z.boolean().meta({
      description: 'The caller interrupted the reply (barge-in): only `spokenText` of it was heard',
    }),
    spokenText: z.string().meta({
      description:
        "What of the reply was spoken (all of it unless interrupted); the next turn's history holds this",
    }),
  })
  .meta({ id: 'SessionTurn' });
export type TurnViewShape = z.input<typeof TurnView>;

const SessionBase = z.object({
  id: z.string().meta({ example: 'sess_…' }),
  status: z.enum(SESSION_STATUSES),
  personaId: z.string(),
  personaVersion: z.number().int().nullable().meta({
    description:
      'The persona version the session runs, fixed at its start; null: the working draft (`pk_test_` keys)',
  }),
  userId: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  greeting: z.string().meta({ description: "The persona's first greeting" }),
  startedAt: timestamp(),
  endedAt: timestamp().nullable(),
  endReason: z.enum(SESSION_END_REASONS).nullable(),
  turnCount: z.number().int(),
  recording: z.boolean().meta({ description: "Each turn's audio is kept" }),
  testRunId: z.string().nullable().meta({
    description:
      'The agent-test run (`testrun_…`) that held this session; null for every other session. Such sessions are left out of the list, the analytics and webhooks unless asked for',
  }),
});
export const SessionSummary = SessionBase.meta({ id: 'Session' });
export const SessionDetail = SessionBase.extend({
  transcript: z.array(TurnView.omit({ reply: true }).extend({ reply: z.object({ text: z.string() }) })),
}).meta({ id: 'SessionWithTranscript' });

export const SessionEnvelope = envelopeOf(SessionSummary);
export const DeletedSessionEnvelope = envelopeOf(
  z.object({ deleted: z.literal(true), id: z.string() }).meta({ id: 'DeletedSession' }),
);
export const SessionDetailEnvelope = envelopeOf(SessionDetail);
export const SessionList = pagedEnvelopeOf(SessionSummary);
export const TurnEnvelope = envelopeOf(TurnView);
export const SessionContextEnvelope = envelopeOf(
  z.object({
    system: z.string().meta({
      description:
        'The system prompt: the persona (with its conversation instructions and language), and the caller’s 20 most recent activities',
    }),
    conversation: z
      .object({
        instructions: z.string().nullable(),
        language: z.string().nullable(),
        model: z.object({
          provider: z.string().nullable().meta({
            description: 'The account’s chat provider (`conversation.model.provider`); null: the platform’s',
          }),
          name: z.string().meta({ description: 'The persona’s `conversation.model.name`, else LLM_MODEL' }),
          temperature: z.number().nullable(),
          maxTokens: z.number().int().nullable(),
        }),
      })
      .meta({ description: 'The persona’s `conversation` settings as turns use them' }),
    tools: z.array(
      z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
    ),
    history: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })),
  }),
);

export const TurnAudioParams = z.strictObject({
  id: z.string().min(1).max(64),
  index: z.coerce.number().int().min(1).max(1_000_000),
});
export const TurnAudioQuery = z.strictObject({
  side: z
    .enum(['caller', 'agent'])
    .meta({ description: '`caller` (what the caller said) or `agent` (the reply as spoken)' }),
});
export const TurnAudio = z.string().meta({ description: 'The recording: `audio/mpeg`', format: 'binary' });

export const ClientTokenEnvelope = envelopeOf(
  z
    .object({
      token: z.string().meta({ description: 'Pass as `?token=` to GET /sessions/:id/stream (WebSocket)' }),
      expiresAt: timestamp(),
    })
    .meta({ id: 'SessionClientToken' }),
);
