import { z } from 'zod';
import { timestamp } from '../../http/envelope';
import { TIERS } from '../items/statuses';
import { PERIOD_PATTERN } from './metering';
import { RUN_ERROR_CODES } from './runtime';

export const TierHeaders = z.object({
  'x-subscription-tier': z.enum(TIERS).meta({ description: 'free, pro or enterprise (set by the gateway)' }),
});

export const ItemIdParams = z.object({ itemId: z.string().min(1).max(64) });

export const ExecuteBody = z
  .strictObject({
    arguments: z.record(z.string(), z.unknown()).default({}).meta({
      description: 'Checked against interface.inputSchema when the tool has one',
    }),
  })
  .meta({ id: 'MarketplaceExecuteRequest' });

const Quota = z.object({
  period: z.string().meta({ description: 'YYYY-MM (UTC)' }),
  used: z.number().int(),
  limit: z.number().int(),
  remaining: z.number().int(),
  resetsAt: timestamp(),
});

export const Execution = z
  .object({
    success: z.boolean().meta({ description: 'false when the tool failed (still metered, not charged)' }),
    itemId: z.string(),
    version: z.string(),
    result: z.unknown().optional(),
    error: z.string().optional(),
    errorCode: z.enum(RUN_ERROR_CODES).optional(),
    durationMs: z.number().int(),
    quota: Quota,
  })
  .meta({ id: 'MarketplaceExecution' });

export const PeriodQuery = z.strictObject({
  period: z
    .string()
    .regex(PERIOD_PATTERN, 'must be a month, YYYY-MM')
    .optional()
    .meta({ description: 'Calendar month (UTC), default the current one', example: '2026-11' }),
});

const Totals = z.object({
  executions: z.number().int(),
  executionTimeMs: z.number().int(),
  quotaUsed: z.number().int(),
  quotaLimit: z.number().int(),
});

export const Usage = z
  .object({
    itemId: z.string(),
    period: z.string(),
    userId: z.string(),
    tier: z.enum(TIERS),
    totals: Totals,
    breakdown: z.array(
      z.object({ date: z.string(), executions: z.number().int(), executionTimeMs: z.number().int() }),
    ),
  })
  .meta({ id: 'MarketplaceUsage' });

export const UsageSummary = z
  .object({
    period: z.string(),
    userId: z.string(),
    tier: z.enum(TIERS),
    aggregate: z.object({
      totalExecutions: z.number().int(),
      totalTimeMs: z.number().int(),
      itemCount: z.number().int(),
    }),
    items: z.array(z.object({ itemId: z.string(), totals: Totals })),
  })
  .meta({ id: 'MarketplaceUsageSummary' });

export const QuotaCheck = z
  .object({
    allowed: z.boolean(),
    reason: z.string().nullable(),
    quotaUsed: z.number().int(),
    quotaLimit: z.number().int(),
    remainingQuota: z.number().int(),
    period: z.string(),
    resetsAt: timestamp(),
  })
  .meta({ id: 'MarketplaceQuotaCheck' });
