import type { components } from '../../api/schema';

/** What the marketplace lists: tools and agents. */
export type ItemType = 'tool' | 'agent';

/** A tool or agent as the browse list shows it. */
export type ItemSummary =
  | components['schemas']['MarketplaceToolSummary']
  | components['schemas']['MarketplaceAgentSummary'];
