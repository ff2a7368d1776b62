import { z } from 'zod';
import { EVENT_TYPES } from '../events/catalog';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import {
  DELIVERY_STATUSES,
  DISABLED_REASONS,
  SIGNING_ALGORITHMS,
  WEBHOOK_KINDS,
  WEBHOOK_STATUSES,
} from './statuses';

const eventTypes = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .max(EVENT_TYPES.length)
  .refine((list) => new Set(list).size === list.length, 'must not repeat an event type')
  .meta({
    description: 'Subscribed event types (docs/api-contract.md "Event types")',
    example: ['session.started', 'tool.failed'],
  });

const personaId = z
  .string()
  .regex(/^persona_[A-Za-z0-9]{1,56}$/, 'must be a persona id (persona_…)')
  .meta({ description: 'Only events of this persona are delivered' });

const includeTestRuns = z.boolean().meta({
  description:
    'Also deliver the events of agent-test runs’ sessions (`session.*`, `tool.*` and `workflow.*` with the session id); default false',
});

const url = z
  .string()
  .max(2048)
  .meta({ description: 'HTTPS endpoint that receives events', example: 'https://example.com/hooks/voice' });

export const CreateWebhookBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ example: 'Order sync' }),
    url,
    events: eventTypes,
    enabled: z.boolean().optional().meta({ description: 'Default true' }),
    personaId: personaId.optional(),
    includeTestRuns: includeTestRuns.optional(),
    signing: z
      .strictObject({ algorithm: z.enum(SIGNING_ALGORITHMS) })
      .optional()
      .meta({
        description:
          '`ed25519`: `webhook-signature` carries `v1a` (Ed25519), verified with the returned `signing.publicKey`; default `hmac-sha256` (`v1`)',
      }),
  })
  .meta({ id: 'CreateWebhookRequest' });
export type CreateWebhookInput = z.infer<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    url: url.optional(),
    events: eventTypes.optional(),
    enabled: z
      .boolean()
      .optional()
      .meta({ description: 'false disables the webhook and stops its pending deliveries' }),
    personaId: personaId.nullable().optional().meta({ description: 'null removes the persona filter' }),
    includeTestRuns: includeTestRuns.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message: 'at least one field to change is required',
    path: ['body'],
  })
  .meta({ id: 'UpdateWebhookRequest' });
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookBody>;

export const ListWebhooksQuery = z.strictObject({
  status: z.enum(WEBHOOK_STATUSES).optional(),
  ...paginationQuery,
});
export type ListWebhooksInput = z.infer<typeof ListWebhooksQuery>;

export const ListDeliveriesQuery = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  ...paginationQuery,
});
export type ListDeliveriesInput = z.infer<typeof ListDeliveriesQuery>;

export const WebhookIdParams = z.object({ id: z.string().max(64) });
export const DeliveryParams = z.object({ id: z.string().max(64), deliveryId: z.string().max(64) });

const webhookBase = {
  id: z.string().meta({ example: 'wh_3kTq…' }),
  kind: z.enum(WEBHOOK_KINDS).meta({
    description:
      '`endpoint` (deliveries POSTed to its URL), or the account’s `listener`: deliveries go down the WebSocket of a connected `vp listen` (enabled only while one is connected)',
  }),
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  personaId: z.string().nullable(),
  includeTestRuns: z.boolean().meta({ description: 'Also gets the events of agent-test runs’ sessions' }),
  status: z.enum(WEBHOOK_STATUSES).meta({
    description:
      '`disabled` when enabled is false (by PUT, or automatically: see disabledReason); `failing` after a delivery exhausted its attempts, until the next successful delivery; else `active`',
  }),
  disabledAt: timestamp().nullable(),
  disabledReason: z.enum(DISABLED_REASONS).nullable().meta({
    description:
      '`manual` (PUT `enabled: false`), `failing` (every attempt failed too long) or `gone` (the receiver answered 410)',
  }),
  failingSince: timestamp()
    .nullable()
    .meta({ description: 'The first failed attempt since the last successful one' }),
  disablesAt: timestamp().nullable().meta({
    description:
      'When it will be disabled unless an attempt succeeds before (null unless enabled and failing)',
  }),
  signing: z.object({
    algorithm: z.enum(SIGNING_ALGORITHMS),
    publicKey: z
      .string()
      .nullable()
      .meta({ description: 'Ed25519 public key (`whpk_…`) that verifies `v1a` signatures; null for HMAC' }),
  }),
  lastDeliveredAt: timestamp().nullable(),
  createdAt: timestamp(),
};

export const WebhookCreated = z
  .object({
    ...webhookBase,
    secret: z
      .string()
      .meta({ description: 'Signing secret (`whsec_…`): returned only here and on rotation' }),
    updatedAt: timestamp(),
  })
  .meta({ id: 'WebhookCreated' });

export const WebhookSummary = z.object(webhookBase).meta({ id: 'WebhookSummary' });

export const DeliveryStats = z
  .object({
    total: z.number().int(),
    successful: z.number().int(),
    failed: z.number().int(),
    pending: z.number().int(),
    averageLatencyMs: z.number().meta({ description: 'Mean latency of delivered attempts (0 when none)' }),
  })
  .meta({ id: 'DeliveryStats' });

export const WebhookDetail = z
  .object({ ...webhookBase, updatedAt: timestamp(), deliveryStats: DeliveryStats })
  .meta({ id: 'Webhook' });

export const WebhookUpdated = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    url: z.string().optional(),
    events: z.array(z.string()).optional(),
    enabled: z.boolean().optional(),
    personaId: z.string().nullable().optional(),
    includeTestRuns: z.boolean().optional(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'WebhookUpdated', description: 'The id, the fields that were changed, and updatedAt' });

export const DeliveryLogEntry = z
  .object({
    id: z.string().meta({ example: 'del_…' }),
    webhookId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    statusCode: z.number().int().optional().meta({ description: 'Last HTTP status from the receiver' }),
    latencyMs: z.number().int().optional().meta({ description: 'On delivered entries' }),
    deliveredAt: timestamp().optional(),
    error: z.string().optional().meta({ description: 'Last error, on failed (and retrying) entries' }),
    lastAttemptAt: timestamp().optional(),
    nextAttemptAt: timestamp().optional().meta({ description: 'When a pending delivery tries again' }),
    test: z.boolean(),
    replayOf: z.string().optional(),
    recoveryId: z.string().optional().meta({ description: 'The recovery (`wrc_…`) that re-sent this event' }),
    createdAt: timestamp(),
  })
  .meta({ id: 'DeliveryLogEntry' });

export const DeliveryAttemptRecord = z
  .object({
    attempt: z.number().int(),
    attemptedAt: timestamp(),
    success: z.boolean(),
    statusCode: z.number().int().nullable(),
    latencyMs: z.number().int(),
    error: z.string().nullable(),
    responseBody: z.string().nullable().meta({ description: 'The first 4 KiB of the answer' }),
  })
  .meta({ id: 'DeliveryAttempt' });

export const DeliveryDetail = z
  .object({
    ...DeliveryLogEntry.shape,
    event: z.record(z.string(), z.unknown()).meta({ description: 'The envelope exactly as sent' }),
    attemptLog: z.array(DeliveryAttemptRecord),
  })
  .meta({ id: 'DeliveryDetail' });

export const WebhookTestResult = z
  .object({
    delivered: z.boolean(),
    statusCode: z.number().int().nullable(),
    latencyMs: z.number().int().nullable(),
    testedAt: timestamp(),
    deliveryId: z.string(),
    eventId: z.string(),
    error: z.string().optional(),
  })
  .meta({ id: 'WebhookTestResult' });

export const RotatedSecret = z
  .object({
    id: z.string(),
    secret: z.string().meta({ description: 'The new signing secret (`whsec_…`), returned only here' }),
    previousSecretExpiresAt: timestamp().meta({
      description: 'Until then deliveries are signed with both secrets (two `v1` values)',
    }),
  })
  .meta({ id: 'RotatedWebhookSecret' });

export const WebhookCreatedEnvelope = envelopeOf(WebhookCreated);
export const WebhookList = pagedEnvelopeOf(WebhookSummary);
export const WebhookEnvelope = envelopeOf(WebhookDetail);
export const WebhookUpdatedEnvelope = envelopeOf(WebhookUpdated);
export const DeletedWebhook = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));
export const WebhookTestEnvelope = envelopeOf(WebhookTestResult);
export const DeliveryList = pagedEnvelopeOf(DeliveryLogEntry);
export const DeliveryEnvelope = envelopeOf(DeliveryDetail);
export const DeliveryLogEnvelope = envelopeOf(DeliveryLogEntry);
export const RotatedSecretEnvelope = envelopeOf(RotatedSecret);
