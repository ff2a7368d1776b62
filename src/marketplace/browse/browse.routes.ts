import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { AgentDetail, AgentList, BrowseIdParams, BrowseQuery, ToolDetail, ToolList } from './browse.schemas';
import { agentDetail, browse, toolDetail } from './browse.service';

const LIST_NOTES =
  'Approved items only (never those being removed). `q` searches names and descriptions with PostgreSQL full-text search, ranked; `publisherId`, `verified`, `sort`, `limit`, `offset` as listed. No credentials needed.';

export function mountBrowseRoutes(open: ApiRoot<null>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  open
    .route({
      method: 'get',
      path: '/browse/tools',
      summary: 'Browse and search tools',
      description: LIST_NOTES,
      query: BrowseQuery,
      success: { description: 'A page of tools and the total', schema: ToolList },
      handler: async ({ query }) => {
        const { summaries, totalCount } = await browse(em(), 'tool', query);
        return { tools: summaries, totalCount };
      },
    })
    .route({
      method: 'get',
      path: '/browse/agents',
      summary: 'Browse and search agents',
      description: LIST_NOTES,
      query: BrowseQuery,
      success: { description: 'A page of agents and the total', schema: AgentList },
      handler: async ({ query }) => {
        const { summaries, totalCount } = await browse(em(), 'agent', query);
        return { agents: summaries.map((s) => ({ ...s, displayName: s.displayName ?? s.name })), totalCount };
      },
    })
    .route({
      method: 'get',
      path: '/browse/tools/:id',
      summary: 'A tool’s details',
      params: BrowseIdParams,
      success: { description: 'The tool', schema: ToolDetail },
      handler: ({ params }) => toolDetail(em(), params.id),
    })
    .route({
      method: 'get',
      path: '/browse/agents/:id',
      summary: 'An agent’s details, with its persona summary and tools',
      params: BrowseIdParams,
      success: { description: 'The agent', schema: AgentDetail },
      handler: ({ params }) => agentDetail(em(), params.id),
    });
}
