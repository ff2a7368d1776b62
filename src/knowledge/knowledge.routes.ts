import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import {
  CreateKnowledgeBaseBody,
  Deleted,
  KnowledgeBaseEnvelope,
  KnowledgeBaseIdParams,
  KnowledgeBaseList,
  ListKnowledgeBasesQuery,
  SearchQuery,
  SearchResults,
  UpdateKnowledgeBaseBody,
} from './knowledge.schemas';
import {
  createKnowledgeBase,
  deleteKnowledgeBase,
  findKnowledgeBase,
  knowledgeBaseView,
  listKnowledgeBases,
  updateKnowledgeBase,
} from './knowledge-bases.service';
import { searchKnowledgeBase } from './search';
import { mountSourceRoutes } from './sources.routes';

/** Knowledge bases, their sources and their search (docs/knowledge.md, docs/api-contract.md "Knowledge bases"). */
export function mountKnowledgeRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/knowledge-bases',
      idempotent: true,
      summary: 'Create a knowledge base',
      description:
        'A named set of sources an agent can search; `language` picks the text-search configuration.',
      scope: 'knowledge:write',
      body: CreateKnowledgeBaseBody,
      success: { status: 201, description: 'The knowledge base', schema: KnowledgeBaseEnvelope },
      handler: async ({ auth, body }) => ok(await createKnowledgeBase(em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/knowledge-bases',
      summary: 'List knowledge bases',
      scope: 'knowledge:read',
      query: ListKnowledgeBasesQuery,
      success: { description: 'Knowledge bases, newest first', schema: KnowledgeBaseList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listKnowledgeBases(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/knowledge-bases/:id',
      summary: 'Get a knowledge base',
      scope: 'knowledge:read',
      params: KnowledgeBaseIdParams,
      success: { description: 'The knowledge base', schema: KnowledgeBaseEnvelope },
      handler: async ({ auth, params }) =>
        ok(knowledgeBaseView(await findKnowledgeBase(em(), auth, params.id))),
    })
    .route({
      method: 'put',
      path: '/knowledge-bases/:id',
      summary: 'Update a knowledge base',
      description: 'Its name, description and language (a new language applies to sources indexed after).',
      scope: 'knowledge:write',
      params: KnowledgeBaseIdParams,
      body: UpdateKnowledgeBaseBody,
      success: { description: 'The knowledge base', schema: KnowledgeBaseEnvelope },
      handler: async ({ auth, params, body }) => ok(await updateKnowledgeBase(em(), auth, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/knowledge-bases/:id',
      summary: 'Delete a knowledge base',
      description: 'With its sources, their content and chunks.',
      scope: 'knowledge:write',
      params: KnowledgeBaseIdParams,
      success: { description: 'Deleted', schema: Deleted },
      handler: async ({ auth, params }) => ok(await deleteKnowledgeBase(em(), auth, params.id)),
    })
    .route({
      method: 'get',
      path: '/knowledge-bases/:id/search',
      summary: 'Search a knowledge base',
      description:
        'Full-text search of its ready chunks: words (stemmed in its language), "phrases in quotes", -excluded words, and the words as prefixes; best first (`ts_rank_cd`). With an embeddings provider and pgvector, hybrid: full-text and nearest-vector results fused by rank.',
      scope: 'knowledge:read',
      params: KnowledgeBaseIdParams,
      query: SearchQuery,
      success: { description: 'The best chunks, with their source and score', schema: SearchResults },
      handler: async ({ auth, params, query }) =>
        ok(
          await searchKnowledgeBase(em(), auth, params.id, query.q, query.limit, {
            embeddings: ctx.config.knowledge.embeddings,
          }),
        ),
    });
  mountSourceRoutes(platform, ctx);
}
