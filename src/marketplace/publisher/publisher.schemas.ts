import { z } from 'zod';
import { timestamp } from '../../http/envelope';
import { ITEM_STATUSES, ITEM_TYPES, TRUST_LEVELS, VERSION_STATUSES } from '../items/statuses';

/**
 * A publisher's item (docs/marketplace.md "Items and their statuses"), with what it needs to follow reviews
 * and removals.
 */
export const PublisherItem = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(ITEM_TYPES),
    version: z
      .string()
      .meta({ description: 'The live version: the approved one, else the latest submitted' }),
    status: z.enum(ITEM_STATUSES),
    trustLevel: z.enum(TRUST_LEVELS),
    publishedAt: timestamp().nullable().meta({ description: 'First approval' }),
    latestVersion: z.string().meta({ description: 'The latest version submitted' }),
    pendingVersion: z.string().nullable().meta({ description: 'The version under review now, if any' }),
    activeInstalls: z.number().int(),
    removesAt: timestamp().nullable().meta({ description: 'removal_scheduled: when the grace period ends' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'MarketplacePublisherItem' });
export type PublisherItemView = z.input<typeof PublisherItem>;

export const PublisherItems = z.object({ items: z.array(PublisherItem), totalCount: z.number().int() });

export const ItemVersionView = z
  .object({
    version: z.string(),
    status: z.enum(VERSION_STATUSES),
    submittedAt: timestamp(),
    decidedAt: timestamp().nullable(),
    reviewId: z.string().meta({ description: 'The review workflow id (Temporal Web UI)' }),
    reviewNotes: z.array(z.string()).meta({ description: "The automated checks' findings" }),
    checksPassed: z.boolean().nullable().meta({ description: 'null while the checks run' }),
    decisionNotes: z.string().nullable().meta({ description: "The operator's notes" }),
    changelog: z.string().nullable().meta({ description: "The version's manifest changelog, if any" }),
  })
  .meta({ id: 'MarketplaceItemVersion' });

export const PublisherItemDetail = z
  .object({
    item: PublisherItem.extend({
      manifest: z.record(z.string(), z.unknown()).meta({ description: 'The live manifest' }),
      versions: z.array(ItemVersionView).meta({ description: 'Newest first' }),
    }),
  })
  .meta({ id: 'MarketplacePublisherItemDetail' });

export const PublisherProfile = z
  .object({
    publisherId: z.string(),
    publisherName: z.string(),
    verified: z.boolean(),
    verifiedAt: timestamp().nullable(),
    trustLevel: z.enum(TRUST_LEVELS),
    stats: z.object({
      totalTools: z.number().int().meta({ description: 'Tools not removed' }),
      totalAgents: z.number().int().meta({ description: 'Agents not removed' }),
      approvedItems: z.number().int().meta({ description: 'Items with status approved' }),
      pendingItems: z.number().int().meta({ description: 'Items with a version under review' }),
    }),
  })
  .meta({ id: 'MarketplacePublisherProfile' });

export const ANALYTICS_PERIODS = ['7d', '30d', '90d'] as const;
export const AnalyticsQuery = z.strictObject({
  period: z
    .enum(ANALYTICS_PERIODS)
    .default('30d')
    .meta({ description: 'The window ending now (default 30d)' }),
});

export const ItemAnalytics = z
  .object({
    itemId: z.string(),
    period: z.enum(ANALYTICS_PERIODS),
    from: timestamp(),
    to: timestamp(),
    metrics: z.object({
      totalInstalls: z.number().int().meta({ description: 'Installations ever made' }),
      activeInstalls: z.number().int(),
      totalExecutions: z.number().int().meta({ description: 'Metering records in the window' }),
      successRate: z
        .number()
        .meta({ description: 'Successful / finished runs in the window, 0–1 (0 with none)' }),
      avgExecutionTimeMs: z.number(),
      errorCount: z.number().int(),
      uniqueUsers: z.number().int(),
    }),
    revenue: z.object({
      totalCents: z.number().int().meta({ description: 'All time: successful runs × price' }),
      periodCents: z.number().int().meta({ description: 'In the window' }),
      currency: z.literal('USD'),
    }),
    topErrors: z.array(z.object({ code: z.string(), count: z.number().int(), lastOccurred: timestamp() })),
  })
  .meta({ id: 'MarketplaceItemAnalytics' });

export const VerificationBody = z
  .strictObject({ verified: z.boolean() })
  .meta({ id: 'PublisherVerificationRequest' });
export const PublisherIdParams = z.object({ id: z.string().min(1).max(128) });
export const VerificationResult = z.object({
  publisher: z.object({
    id: z.string(),
    name: z.string(),
    verified: z.boolean(),
    verifiedAt: timestamp().nullable(),
    trustLevel: z.enum(TRUST_LEVELS),
  }),
});
