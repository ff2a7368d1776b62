import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import { TOOL_TYPES } from './tool.entity';

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'must be an HTTP header name');

/** Why a tool call failed, where a code says it (src/tools/tool-types.ts ToolErrorCode). */
export const ToolErrorCodeSchema = z.enum(['RESPONSE_TOO_LARGE']).meta({
  description: 'the answer passed its size cap, so the call failed instead of answering part of it',
});

export const WebhookToolConfig = z
  .strictObject({
    url: z.string().max(2048).meta({ example: 'https://crm.example.com/orders/lookup' }),
    method: z
      .string()
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])),
    headers: z
      .record(headerName, z.string().max(4096))
      .optional()
      .meta({
        description: 'Values may use {{secrets.NAME}}',
        example: { Authorization: 'Bearer {{secrets.CRM_TOKEN}}' },
      }),
    timeoutMs: z.number().int().min(100).max(30_000).optional().meta({ description: 'Default 10000' }),
    oauthTokenId: z
      .string()
      .max(64)
      .optional()
      .meta({ description: 'An OAuth token sent as `Authorization: Bearer …`, refreshed when expired' }),
  })
  .meta({ id: 'WebhookToolConfig' });

export const McpToolConfig = z
  .strictObject({
    serverId: z.string().max(64).meta({ description: 'One of your MCP servers' }),
    toolName: z.string().min(1).max(200),
  })
  .meta({ id: 'McpToolConfig' });

export const PromptToolConfig = z
  .strictObject({
    prompt: z.string().min(1).max(20_000).meta({ description: '`{{input}}` is replaced by the arguments' }),
    model: z.string().max(100).optional().meta({ description: 'Default LLM_MODEL' }),
    maxTokens: z.number().int().min(1).max(8192).optional(),
  })
  .meta({ id: 'PromptToolConfig' });

export const CONFIG_SCHEMAS = {
  webhook: WebhookToolConfig,
  mcp: McpToolConfig,
  prompt: PromptToolConfig,
} as const;

const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;

export const ParametersSchema = z
  .strictObject({
    type: z.literal('object'),
    properties: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a parameter name'),
        z.strictObject({
          type: z.enum(PARAMETER_TYPES),
          enum: z.array(z.string()).min(1).max(100).optional(),
          description: z.string().max(1000).optional(),
        }),
      )
      .default({}),
    required: z.array(z.string()).optional(),
  })
  .superRefine((p, ctx) => {
    for (const name of p.required ?? []) {
      if (!(name in p.properties))
        ctx.addIssue({ code: 'custom', path: ['required'], message: `${name} is not a property` });
    }
    for (const [name, prop] of Object.entries(p.properties)) {
      if (prop.enum && prop.type !== 'string') {
        ctx.addIssue({
          code: 'custom',
          path: ['properties', name, 'enum'],
          message: 'enum is only for string parameters',
        });
      }
    }
  })
  .meta({
    id: 'ToolParameters',
    description: 'type "object"; properties: name → { type, enum? }; required?',
  });

export type ToolParameters = z.infer<typeof ParametersSchema>;

const common = {
  name: z.string().trim().min(1).max(100).meta({ example: 'lookup_order' }),
  description: z.string().max(2000).optional(),
  parameters: ParametersSchema.optional(),
};

export const CreateToolBody = z
  .discriminatedUnion('type', [
    z.strictObject({ ...common, type: z.literal('webhook'), config: WebhookToolConfig }),
    z.strictObject({ ...common, type: z.literal('mcp'), config: McpToolConfig }),
    z.strictObject({ ...common, type: z.literal('prompt'), config: PromptToolConfig }),
  ])
  .meta({ id: 'CreateToolRequest' });
export type CreateToolInput = z.infer<typeof CreateToolBody>;

export const UpdateToolBody = z
  .strictObject({
    name: common.name.optional(),
    description: z.string().max(2000).nullable().optional(),
    type: z.enum(TOOL_TYPES).optional().meta({ description: 'Changing it needs a new config too' }),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Validated against the (new) type' }),
    parameters: ParametersSchema.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message: 'at least one field to change is required',
    path: ['body'],
  })
  .meta({ id: 'UpdateToolRequest' });
export type UpdateToolInput = z.infer<typeof UpdateToolBody>;

export const TestToolBody = z
  .strictObject({
    arguments: z.record(z.string(), z.unknown()).default({}),
    sessionId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'One of your voice sessions (404 otherwise); carried into the tool events' }),
  })
  .meta({ id: 'TestToolRequest' });
export type TestToolInput = z.infer<typeof TestToolBody>;

export const ToolRecord = z
  .object({
    id: z.string().meta({ example: 'tool_…' }),
    name: z.string(),
    description: z.string().nullable(),
    type: z.enum(TOOL_TYPES),
    config: z.record(z.string(), z.unknown()),
    parameters: z.record(z.string(), z.unknown()),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Tool' });

export const ToolExecution = z
  .object({
    success: z.boolean(),
    result: z.unknown().optional(),
    error: z.string().optional(),
    errorCode: ToolErrorCodeSchema.optional(),
    durationMs: z.number().int(),
    statusCode: z.number().int().optional().meta({ description: 'webhook tools: the HTTP status' }),
  })
  .meta({ id: 'ToolExecution' });

export const ToolIdParams = z.object({ id: z.string().max(64) });
export const ListToolsQuery = z.strictObject({
  type: z.enum(TOOL_TYPES).optional(),
  ...paginationQuery,
});
export type ListToolsInput = z.infer<typeof ListToolsQuery>;

export const ToolEnvelope = envelopeOf(ToolRecord);
export const ToolList = pagedEnvelopeOf(ToolRecord);
export const DeletedTool = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));
export const ToolExecutionEnvelope = envelopeOf(ToolExecution);
