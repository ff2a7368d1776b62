import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import {
  CreateSourceBody,
  Deleted,
  KnowledgeBaseIdParams,
  KnowledgeSourceEnvelope,
  KnowledgeSourceList,
  ListSourcesQuery,
  SourceIdParams,
} from './knowledge.schemas';
import {
  createSource,
  deleteSource,
  findSource,
  listSources,
  refreshSource,
  sourceView,
} from './sources.service';

/** A knowledge base's sources (docs/knowledge.md "Knowledge bases and sources"). */
export function mountSourceRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/knowledge-bases/:id/sources',
      summary: 'Add a source',
      description:
        'JSON `{type: "text", name, text}` or `{type: "url", url, crawl?}`, or multipart/form-data with one `file` part (PDF, DOCX, HTML, Markdown or plain text, at most 20 MB: a larger file is a 413) and an optional `name` field. Answers the source `pending`; its ingestion workflow extracts, chunks and indexes it (`knowledge.source.ready` or `knowledge.source.failed`).',
      scope: 'knowledge:write',
      params: KnowledgeBaseIdParams,
      body: CreateSourceBody,
      success: { status: 201, description: 'The source, pending', schema: KnowledgeSourceEnvelope },
      handler: async ({ auth, params, body, req }) =>
        ok(await createSource(ctx, em(), auth, params.id, req, body)),
    })
    .route({
      method: 'get',
      path: '/knowledge-bases/:id/sources',
      summary: "A knowledge base's sources",
      scope: 'knowledge:read',
      params: KnowledgeBaseIdParams,
      query: ListSourcesQuery,
      success: { description: 'Sources, newest first', schema: KnowledgeSourceList },
      handler: async ({ auth, params, query }) => {
        const { data, total } = await listSources(em(), auth, params.id, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/knowledge-bases/:id/sources/:sourceId',
      summary: 'Get a source',
      scope: 'knowledge:read',
      params: SourceIdParams,
      success: { description: 'The source', schema: KnowledgeSourceEnvelope },
      handler: async ({ auth, params }) =>
        ok(sourceView(await findSource(em(), auth, params.id, params.sourceId))),
    })
    .route({
      method: 'delete',
      path: '/knowledge-bases/:id/sources/:sourceId',
      summary: 'Delete a source',
      description: 'With its content and chunks: search finds none of them once this answers.',
      scope: 'knowledge:write',
      params: SourceIdParams,
      success: { description: 'Deleted', schema: Deleted },
      handler: async ({ auth, params }) =>
        ok(await deleteSource(ctx, em(), auth, params.id, params.sourceId)),
    })
    .route({
      method: 'post',
      path: '/knowledge-bases/:id/sources/:sourceId/refresh',
      summary: 'Refresh a source',
      description:
        'Ingests a ready or failed source again (a URL is fetched again); its chunks are replaced at once when the new ones are ready. 409 while it is being indexed.',
      scope: 'knowledge:write',
      params: SourceIdParams,
      success: { status: 202, description: 'The source, pending', schema: KnowledgeSourceEnvelope },
      handler: async ({ auth, params }) =>
        ok(await refreshSource(ctx, em(), auth, params.id, params.sourceId)),
    });
}
