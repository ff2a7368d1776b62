import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/errors';
import { MarketplaceItem, MarketplaceItemVersion, MarketplacePublisher } from '../items/item.entity';
import { iso, trustLevel } from '../items/items.service';
import {
  type AgentManifest,
  type ItemManifest,
  isExecutable,
  quotaLimit,
  type ToolManifest,
} from '../items/manifest';
import type { ItemType } from '../items/statuses';
import type { BrowseInput } from './browse.schemas';

interface BrowseRow {
  id: string;
  name: string;
  display_name: string | null;
  description_short: string;
  version: string;
  active_installs: number;
  pricing: ItemManifest['pricing'] | null;
  published_at: Date | null;
  approved_at: Date | null;
  publisher_id: string;
  publisher_name: string;
  verified: boolean;
}

const ORDER = {
  relevance: 'rank desc, i.active_installs desc',
  popular: 'i.active_installs desc',
  recent: 'i.approved_at desc',
  name: 'lower(i.name) asc',
} as const;

const pricingOf = (pricing: ItemManifest['pricing'] | null | undefined) => pricing ?? { model: 'free' };

/**
 * GET /browse/tools and /browse/agents: approved items not being removed. `q` is PostgreSQL full-text
 * search (websearch_to_tsquery over the generated, GIN-indexed `search` vector: id and names weigh
 * most, then the short, then the long description), ranked with ts_rank. One statement; the total
 * comes from a count run beside it.
 */
export async function browse(em: EntityManager, type: ItemType, input: BrowseInput) {
  const where = [`i.type = ?`, `i.status = 'approved'`];
  const bindings: unknown[] = [];
  const sort = input.sort ?? (input.q ? 'relevance' : 'popular');
  let from = 'marketplace_items i join marketplace_publishers p on p.id = i.publisher_id';
  let rank = '0::real';
  if (input.q) {
    from += ` cross join websearch_to_tsquery('english', ?) as query`;
    bindings.push(input.q);
    where.push('i.search @@ query');
    rank = 'ts_rank(i.search, query)';
  }
  bindings.push(type);
  if (input.publisherId) {
    where.push('i.publisher_id = ?');
    bindings.push(input.publisherId);
  }
  if (input.verified !== undefined) {
    where.push('p.verified = ?');
    bindings.push(input.verified);
  }
  const conditions = where.join(' and ');
  const connection = em.getConnection();
  // the page and the total in parallel: a window count would make every page sort all matches
  const [rows, [count]] = await Promise.all([
    connection.execute<BrowseRow[]>(
      `select i.id, i.name, i.display_name, i.description_short, i.version, i.active_installs,
              i.manifest -> 'pricing' as pricing, i.published_at, i.approved_at,
              p.id as publisher_id, p.name as publisher_name, p.verified, ${rank} as rank
         from ${from}
        where ${conditions}
        order by ${ORDER[sort]}, i.id
        limit ? offset ?`,
      [...bindings, input.limit, input.offset],
    ),
    connection.execute<{ total: string }[]>(
      `select count(*) as total from ${from} where ${conditions}`,
      bindings,
    ),
  ]);
  const totalCount = Number(count.total);
  const summaries = rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description_short,
    version: r.version,
    publisher: { id: r.publisher_id, name: r.publisher_name },
    trustLevel: trustLevel(r.verified),
    verified: r.verified,
    activeInstalls: r.active_installs,
    pricing: pricingOf(r.pricing),
    publishedAt: iso(r.published_at),
    updatedAt: iso(r.approved_at),
    ...(type === 'agent' ? { displayName: r.display_name ?? r.name } : {}),
  }));
  return { summaries, totalCount };
}

async function browsable(em: EntityManager, type: ItemType, id: string) {
  const item = await em.findOne(MarketplaceItem, { id, type, status: 'approved' });
  if (!item) throw notFound(type === 'tool' ? 'Tool' : 'Agent');
  const [publisher, released] = await Promise.all([
    em.findOneOrFail(MarketplacePublisher, { id: item.publisherId }),
    em.find(
      MarketplaceItemVersion,
      { itemId: item.id, status: ['approved', 'superseded'] },
      { orderBy: { seq: 'desc' } },
    ),
  ]);
  const m = item.manifest;
  return {
    item,
    common: {
      id: item.id,
      name: item.name,
      version: item.version,
      description: { short: m.description.short, long: m.description.long },
      publisher: { id: publisher.id, name: publisher.name },
      verification: {
        trustLevel: trustLevel(publisher.verified),
        verified: publisher.verified,
        verifiedAt: iso(publisher.verifiedAt),
      },
      permissions: m.permissions ?? [],
      pricing: pricingOf(m.pricing),
      quotas: {
        free: quotaLimit(m, 'free'),
        pro: quotaLimit(m, 'pro'),
        enterprise: quotaLimit(m, 'enterprise'),
      },
      activeInstalls: item.activeInstalls,
      publishedAt: iso(item.publishedAt),
      updatedAt: iso(item.approvedAt),
      versions: released.map((v) => ({
        version: v.version,
        releasedAt: iso(v.decidedAt),
        changelog: v.manifest.changelog ?? null,
      })),
    },
  };
}

/** GET /browse/tools/:id: the live (approved) version; the endpoint stays private. */
export async function toolDetail(em: EntityManager, id: string) {
  const { item, common } = await browsable(em, 'tool', id);
  const m = item.manifest as ToolManifest;
  return {
    tool: {
      ...common,
      execution: {
        runtime: m.execution.runtime,
        ...(m.execution.toolName ? { toolName: m.execution.toolName } : {}),
        executable: isExecutable(m),
      },
      interface: m.interface,
    },
  };
}

/** GET /browse/agents/:id: with its persona summary and its tools (and whether each is still available). */
export async function agentDetail(em: EntityManager, id: string) {
  const { item, common } = await browsable(em, 'agent', id);
  const m = item.manifest as AgentManifest;
  const tools = m.tools.length ? await em.find(MarketplaceItem, { id: m.tools, type: 'tool' }) : [];
  const { identity = {}, voice = {}, personality = {}, knowledge = {}, behaviors = {} } = m.persona;
  return {
    agent: {
      ...common,
      displayName: m.displayName,
      persona: {
        name: identity.name ?? null,
        tagline: identity.tagline ?? null,
        description: identity.description ?? null,
        category: knowledge.category ?? null,
        voice: { provider: voice.provider ?? null, voiceId: voice.voice_id ?? null },
        traits: personality.traits ?? [],
        greeting: behaviors.greetings?.[0] ?? null,
      },
      tools: m.tools.map((toolId) => {
        const tool = tools.find((t) => t.id === toolId);
        return {
          id: toolId,
          name: tool?.name ?? null,
          version: tool?.approvedVersion ?? null,
          available: tool?.status === 'approved',
        };
      }),
    },
  };
}
