import { z } from 'zod';
import { timestamp } from '../http/envelope';
import {
  ANALYTICS_ENVIRONMENTS,
  dayCount,
  dayStart,
  PERIODS,
  USAGE_DEFAULT_DAYS,
  USAGE_MAX_DAYS,
  utcDay,
} from './windows';

const environment = z
  .enum(ANALYTICS_ENVIRONMENTS)
  .default('live')
  .meta({ description: 'Which keys’ traffic: `live` (default), `test` (sandbox) or `all`' });

const period = z.enum(PERIODS).default('week').meta({
  description:
    'Rolling window ending now: `day` (24 h), `week` (7 days, default), `month` (30 days) or `year` (365 days)',
});

const includeTestRuns = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true')
  .meta({
    description:
      '`true`: count the sessions of agent-test runs too (their users, personas, durations and analyses), which are left out by default',
  });

export const PeriodQuery = z.strictObject({ period, environment });
export type PeriodQueryInput = z.infer<typeof PeriodQuery>;
/** A period's figures of sessions, which may count the sessions of agent-test runs too. */
export const SessionPeriodQuery = z.strictObject({ period, environment, includeTestRuns });
export type SessionPeriodQueryInput = z.infer<typeof SessionPeriodQuery>;

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
  .refine((d) => !Number.isNaN(dayStart(d)) && utcDay(dayStart(d)) === d, 'must be a valid calendar date');

export const UsageQuery = z
  .strictObject({
    from: isoDay.optional().meta({
      description: `First day (UTC, inclusive); default ${USAGE_DEFAULT_DAYS - 1} days before \`to\``,
    }),
    to: isoDay.optional().meta({ description: 'Last day (UTC, inclusive); default today' }),
    environment,
    includeTestRuns,
  })
  .superRefine((q, issue) => {
    if (q.from && q.to && q.from > q.to) {
      issue.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
    } else if (q.from && q.to && dayCount(q.from, q.to) > USAGE_MAX_DAYS) {
      issue.addIssue({
        code: 'custom',
        path: ['from'],
        message: `must be at most ${USAGE_MAX_DAYS} days before to`,
      });
    }
  });
export type UsageQueryInput = z.infer<typeof UsageQuery>;

const count = () => z.number().int().min(0);
const changeOf = (what: string) =>
  z.number().meta({
    description: `Change of ${what} against the previous period of the same length: (current − previous) / previous; 0 when both are 0, 1 when only the previous one is 0`,
  });

export const AnalyticsOverview = z
  .object({
    totalApiCalls: count().meta({ description: 'Platform API calls answered in the period' }),
    totalApiCallsChange: changeOf('totalApiCalls'),
    uniqueUsers: count().meta({ description: 'Distinct user ids of the sessions started in the period' }),
    uniqueUsersChange: changeOf('uniqueUsers'),
    activePersonas: count().meta({ description: 'Personas with a session started in the period' }),
    activePersonasChange: changeOf('activePersonas'),
    errorRate: z.number().min(0).max(1).meta({ description: 'Fraction of API answers with status ≥ 400' }),
    errorRateChange: changeOf('errorRate'),
    avgResponseTime: z.number().min(0).meta({ description: 'Mean API response time, ms' }),
    avgResponseTimeChange: changeOf('avgResponseTime'),
  })
  .meta({ id: 'AnalyticsOverview' });

/** The window a figure covers: `[from, to)` of the period, and of the previous one. */
const PeriodWindow = z.object({
  period: z.enum(PERIODS),
  from: timestamp(),
  to: timestamp(),
  previousFrom: timestamp(),
});

export const OverviewEnvelope = z.object({ overview: AnalyticsOverview }).extend(PeriodWindow.shape);

export const UsageEntry = z
  .object({
    date: z.string().meta({ description: 'UTC day, YYYY-MM-DD', example: '2026-11-24' }),
    apiCalls: count(),
    uniqueUsers: count().meta({ description: 'Distinct user ids of the sessions started that day' }),
    errors: count().meta({ description: 'API answers with status ≥ 400' }),
  })
  .meta({ id: 'AnalyticsUsageEntry' });
export const UsageEnvelope = z.object({
  usage: z.array(UsageEntry).meta({ description: 'One entry per day, days without traffic included' }),
  from: z.string(),
  to: z.string(),
});

export const PersonaEntry = z
  .object({
    personaId: z.string(),
    personaName: z.string(),
    totalCalls: count().meta({ description: 'Sessions started in the period' }),
    avgSessionDuration: z.number().min(0).meta({ description: 'Mean duration of those that ended, ms' }),
    uniqueUsers: count(),
    analyzedCalls: count().meta({
      description:
        'Post-call analyses completed in the period with a success verdict (the persona has `analysis.successCriteria`)',
    }),
    successRate: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .meta({ description: 'Of those, the share that passed (0–1); null when there are none' }),
  })
  .meta({ id: 'AnalyticsPersonaEntry' });
export const PersonasEnvelope = z
  .object({
    personas: z
      .array(PersonaEntry)
      .meta({ description: 'Personas with a session in the period, busiest first' }),
  })
  .extend(PeriodWindow.shape);

export const ErrorEntry = z
  .object({
    code: z.string().meta({ example: 'VALIDATION_FAILED' }),
    message: z.string().meta({ description: 'The message of its latest occurrence' }),
    count: count(),
    lastOccurred: timestamp(),
  })
  .meta({ id: 'AnalyticsErrorEntry' });
export const ErrorsEnvelope = z
  .object({
    errors: z.array(ErrorEntry).meta({ description: 'Most frequent first' }),
  })
  .extend(PeriodWindow.shape);
