import { z } from 'zod';
import { envelopeOf, numberFromString, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import { ACTIVITY_TYPE_PATTERN, MAX_PAYLOAD_BYTES, parseMetricPath, payloadBytes } from './rules';

export const STATS_GROUP_BY = ['type', 'day', 'user'] as const;
export type StatsGroupBy = (typeof STATS_GROUP_BY)[number];

const activityType = z
  .string()
  .regex(
    ACTIVITY_TYPE_PATTERN,
    'must start with a lower-case letter, then up to 63 lower-case letters, digits or _ . : -',
  )
  .meta({ description: 'What happened, e.g. `order.placed`', example: 'order.placed' });

const payload = z
  .record(z.string(), z.unknown())
  .refine((p) => payloadBytes(p) <= MAX_PAYLOAD_BYTES, {
    message: `must be at most ${MAX_PAYLOAD_BYTES} bytes (32 KiB) as JSON`,
  })
  .meta({
    description: 'Any JSON object, at most 32 KiB as JSON',
    example: { orderId: 'A-1042', amount: 42.5 },
  });

const isoDateTime = () =>
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2026-11-23T10:00:00Z' })
    .meta({ description: 'ISO 8601 date-time' });

const userId = z
  .string()
  .min(1)
  .max(128)
  .meta({ description: 'Your id of the end user', example: 'user-8812' });
const sessionId = z
  .string()
  .regex(/^sess_[A-Za-z0-9]{1,56}$/, 'must be a session id (sess_…)')
  .meta({ description: 'The voice session it happened in' });
const personaId = z
  .string()
  .regex(/^persona_[A-Za-z0-9]{1,56}$/, 'must be a persona id (persona_…)')
  .meta({ description: 'The persona it concerns' });

export const CreateActivityBody = z
  .strictObject({
    type: activityType,
    payload,
    userId: userId.optional(),
    sessionId: sessionId.optional(),
    personaId: personaId.optional(),
    occurredAt: isoDateTime().optional().meta({ description: 'When it happened (default: now)' }),
  })
  .meta({ id: 'CreateActivityRequest' });
export type CreateActivityInput = z.infer<typeof CreateActivityBody>;

export const UpdateActivityBody = z
  .strictObject({
    type: activityType.optional(),
    payload: payload.optional(),
    occurredAt: isoDateTime().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message: 'at least one of type, payload, occurredAt is required',
    path: ['body'],
  })
  .meta({ id: 'UpdateActivityRequest' });
export type UpdateActivityInput = z.infer<typeof UpdateActivityBody>;

const fromQuery = isoDateTime().optional().meta({ description: 'occurredAt at or after (inclusive)' });
const toQuery = isoDateTime().optional().meta({ description: 'occurredAt at or before (inclusive)' });

export const ListActivitiesQuery = z.strictObject({
  type: activityType.optional(),
  userId: userId.optional(),
  sessionId: sessionId.optional(),
  personaId: personaId.optional(),
  from: fromQuery,
  to: toQuery,
  ...paginationQuery,
});
export type ListActivitiesInput = z.infer<typeof ListActivitiesQuery>;

export const MAX_STATS_GROUPS = 1000;

export const ActivityStatsQuery = z.strictObject({
  from: isoDateTime()
    .optional()
    .meta({ description: 'Window start, inclusive (default: 30 days before `to`)' }),
  to: isoDateTime().optional().meta({ description: 'Window end, inclusive (default: now)' }),
  type: activityType.optional(),
  userId: userId.optional(),
  groupBy: z
    .enum(STATS_GROUP_BY)
    .optional()
    .meta({ description: '`type`, `day` (UTC, `YYYY-MM-DD`) or `user`; without it one group `all`' }),
  metric: z
    .string()
    .max(600)
    .superRefine((path, issue) => {
      const parsed = parseMetricPath(path);
      if ('problem' in parsed) issue.addIssue({ code: 'custom', message: parsed.problem });
    })
    .optional()
    .meta({
      description:
        'Dotted path into the payload (`amount`, `order.total`, `items.0.price`): sum, avg, min and max of its numeric values',
      example: 'order.total',
    }),
  limit: numberFromString(z.coerce.number().int().min(1).max(MAX_STATS_GROUPS).default(100)).meta({
    description: `Most groups returned (1-${MAX_STATS_GROUPS}, default 100)`,
  }),
});
export type ActivityStatsInput = z.infer<typeof ActivityStatsQuery>;

export const ActivityIdParams = z.object({ id: z.string().max(64) });

export const ActivityRecord = z
  .object({
    id: z.string().meta({ example: 'act_3kTq…' }),
    type: z.string(),
    payload: z.record(z.string(), z.unknown()),
    userId: z.string().nullable(),
    sessionId: z.string().nullable(),
    personaId: z.string().nullable(),
    occurredAt: timestamp(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Activity' });

const metricFields = {
  measured: z.number().int().optional().meta({ description: 'With `metric`: values that were numbers' }),
  skipped: z
    .number()
    .int()
    .optional()
    .meta({ description: 'With `metric`: activities whose value is missing or not a number' }),
  sum: z
    .number()
    .nullable()
    .optional()
    .meta({ description: 'With `metric`: null when nothing was measured' }),
  avg: z.number().nullable().optional(),
  min: z.number().nullable().optional(),
  max: z.number().nullable().optional(),
};

export const ActivityStatsGroup = z
  .object({
    key: z
      .string()
      .nullable()
      .meta({ description: 'The type, the UTC day (`YYYY-MM-DD`), the userId (null: no user), or `all`' }),
    count: z.number().int(),
    ...metricFields,
  })
  .meta({ id: 'ActivityStatsGroup' });

export const ActivityStats = z
  .object({
    total: z.number().int().meta({ description: 'Activities in the window (after filters)' }),
    from: timestamp(),
    to: timestamp(),
    groupBy: z.enum(STATS_GROUP_BY).nullable(),
    metric: z.string().nullable(),
    ...metricFields,
    groupCount: z.number().int().meta({ description: 'Groups before `limit` was applied' }),
    groups: z.array(ActivityStatsGroup),
  })
  .meta({ id: 'ActivityStats' });

export const ActivityEnvelope = envelopeOf(ActivityRecord);
export const ActivityList = pagedEnvelopeOf(ActivityRecord);
export const ActivityStatsEnvelope = envelopeOf(ActivityStats);
export const DeletedActivity = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));
