import { z } from 'zod';
import { numberFromString, timestamp } from '../../http/envelope';
import { TRUST_LEVELS } from '../items/statuses';

export const BROWSE_SORTS = ['relevance', 'popular', 'recent', 'name'] as const;

export const BrowseQuery = z.strictObject({
  q: z.string().trim().min(1).max(200).optional().meta({
    description:
      'Full-text search over name and descriptions (web-search syntax: "phrase", or, -word); ranked',
  }),
  publisherId: z.string().min(1).max(128).optional(),
  verified: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .meta({ description: 'Only items of verified (or unverified) publishers' }),
  sort: z.enum(BROWSE_SORTS).optional().meta({
    description:
      '`popular` (active installs), `recent` (latest approval), `name`, or `relevance` (search rank). Default: relevance with q, else popular',
  }),
  limit: numberFromString(z.coerce.number().int().min(1).max(100).default(20)).meta({
    description: '1-100, default 20',
  }),
  offset: numberFromString(z.coerce.number().int().min(0).max(100_000).default(0)),
});
export type BrowseInput = z.infer<typeof BrowseQuery>;

const Publisher = z.object({ id: z.string(), name: z.string() });
const Pricing = z.object({
  model: z.string(),
  priceCents: z.number().int().optional(),
  currency: z.string().optional(),
});

export const ToolSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().meta({ description: 'description.short' }),
    version: z.string(),
    publisher: Publisher,
    trustLevel: z.enum(TRUST_LEVELS),
    verified: z.boolean(),
    activeInstalls: z.number().int(),
    pricing: Pricing,
    publishedAt: timestamp().nullable(),
    updatedAt: timestamp().nullable().meta({ description: 'Latest approval' }),
  })
  .meta({ id: 'MarketplaceToolSummary' });
export const AgentSummary = ToolSummary.extend({ displayName: z.string() }).meta({
  id: 'MarketplaceAgentSummary',
});

export const ToolList = z.object({ tools: z.array(ToolSummary), totalCount: z.number().int() });
export const AgentList = z.object({ agents: z.array(AgentSummary), totalCount: z.number().int() });

const Verification = z.object({
  trustLevel: z.enum(TRUST_LEVELS),
  verified: z.boolean(),
  verifiedAt: timestamp().nullable(),
});
const Quotas = z.object({ free: z.number().int(), pro: z.number().int(), enterprise: z.number().int() });

const detailCommon = {
  id: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.object({ short: z.string(), long: z.string() }),
  publisher: Publisher,
  verification: Verification,
  permissions: z.array(z.string()).meta({ description: 'What installing asks the user to grant' }),
  pricing: Pricing,
  quotas: Quotas.meta({ description: 'Executions per user and month by tier (manifest or defaults)' }),
  activeInstalls: z.number().int(),
  publishedAt: timestamp().nullable(),
  updatedAt: timestamp().nullable(),
  versions: z
    .array(
      z.object({
        version: z.string(),
        releasedAt: timestamp().nullable().meta({ description: 'When the version was approved' }),
        changelog: z.string().nullable().meta({ description: "The manifest's changelog, if any" }),
      }),
    )
    .meta({ description: 'The versions released (approved), newest first; the first is the live one' }),
};

export const ToolDetail = z
  .object({
    tool: z.object({
      ...detailCommon,
      execution: z
        .object({
          runtime: z.object({ type: z.string(), version: z.string() }),
          toolName: z.string().optional(),
          executable: z.boolean().meta({ description: 'True for the mcp and http runtimes (POST /execute)' }),
        })
        .meta({
          description: 'The endpoint is never shown: runs go through POST /execute (metered, quota-checked)',
        }),
      interface: z.object({
        llmDescription: z.string(),
        inputSchema: z.record(z.string(), z.unknown()).optional(),
      }),
    }),
  })
  .meta({ id: 'MarketplaceToolDetail' });

export const AgentDetail = z
  .object({
    agent: z.object({
      ...detailCommon,
      displayName: z.string(),
      persona: z.object({
        name: z.string().nullable(),
        tagline: z.string().nullable(),
        description: z.string().nullable(),
        category: z.string().nullable(),
        voice: z.object({ provider: z.string().nullable(), voiceId: z.string().nullable() }),
        traits: z.array(z.string()),
        greeting: z.string().nullable(),
      }),
      tools: z.array(
        z.object({
          id: z.string(),
          name: z.string().nullable(),
          version: z.string().nullable(),
          available: z.boolean().meta({ description: 'Still an approved tool in the marketplace' }),
        }),
      ),
    }),
  })
  .meta({ id: 'MarketplaceAgentDetail' });

export const BrowseIdParams = z.object({ id: z.string().min(1).max(64) });
