import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import type { AppContext } from '../common/context';
import type { Owner } from '../common/owner';
import { conflict, notFound, validationFailed } from '../http/errors';
import { startIngestionWorkflow } from './ingestion-workflows';
import { KnowledgeSource } from './knowledge.entity';
import type { CreateSourceInput, ListSourcesInput } from './knowledge.schemas';
import { findKnowledgeBase } from './knowledge-bases.service';
import { isMultipart, readUpload } from './uploads';

export function sourceView(s: KnowledgeSource) {
  return {
    id: s.id,
    knowledgeBaseId: s.knowledgeBaseId,
    type: s.type,
    name: s.name,
    url: s.url,
    crawl: s.crawl,
    contentType: s.contentType,
    status: s.status,
    failureReason: s.failureReason,
    chunks: s.chunkCount,
    bytes: s.bytes,
    indexedAt: s.indexedAt?.toISOString() ?? null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** A source of one of the owner's bases, or 404 (another account's base or source reads as missing). */
export async function findSource(em: EntityManager, owner: Owner, baseId: string, id: string) {
  const source = await em.findOne(KnowledgeSource, {
    id,
    knowledgeBaseId: baseId,
    account: owner.accountId,
    environment: owner.environment,
  });
  if (!source) throw notFound('Knowledge source');
  return source;
}

/** A document of a new source: what its workflow reads (the upload, the text). */
interface SourceDocument {
  contentType: string | null;
  fileName: string | null;
  content: Buffer;
}

/** What the request adds: a source's columns and, for a text or file, its one document. */
async function sourceFromRequest(req: Request, input: CreateSourceInput) {
  if (input.type === 'text') {
    const content = Buffer.from(input.text, 'utf8');
    const document = { contentType: 'text/markdown', fileName: null, content };
    return {
      fields: {
        type: 'text' as const,
        name: input.name,
        contentType: 'text/markdown',
        bytes: content.length,
      },
      document,
    };
  }
  if (input.type === 'url') {
    const crawl = input.crawl ? { maxDepth: input.crawl.maxDepth, maxPages: input.crawl.maxPages } : null;
    return {
      fields: { type: 'url' as const, name: input.name ?? input.url.slice(0, 300), url: input.url, crawl },
      document: null,
    };
  }
  if (!isMultipart(req))
    throw validationFailed(['type: a file is uploaded as multipart/form-data, not JSON']);
  const upload = await readUpload(req);
  const document: SourceDocument = {
    contentType: upload.contentType,
    fileName: upload.fileName,
    content: upload.bytes,
  };
  const name = (upload.name ?? upload.fileName).slice(0, 300);
  return {
    fields: { type: 'file' as const, name, contentType: upload.contentType, bytes: upload.bytes.length },
    document,
  };
}

/**
 * POST /knowledge-bases/:id/sources: commits the source `pending` (and its text or file, as bytea) in
 * one transaction, then starts its ingestion workflow (if Temporal cannot be reached, the dispatcher
 * starts it a few seconds later: the row is the outbox).
 */
export async function createSource(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  baseId: string,
  req: Request,
  input: CreateSourceInput,
) {
  const base = await findKnowledgeBase(em, owner, baseId);
  const { fields, document } = await sourceFromRequest(req, input);
  const source = await em.transactional(async (tem) => {
    const created = tem.create(KnowledgeSource, {
      account: owner.accountId,
      environment: owner.environment,
      knowledgeBaseId: base.id,
      ...fields,
    });
    await tem.flush();
    if (document) {
      await tem
        .getConnection()
        .execute(
          'insert into knowledge_source_documents (source_id, ordinal, content_type, file_name, content) values (?, 0, ?, ?, ?)',
          [created.id, document.contentType, document.fileName, document.content],
          'run',
          tem.getTransactionContext(),
        );
    }
    return created;
  });
  await startCommitted(ctx, em, source);
  return sourceView(source);
}

/** Starts a committed source's ingestion; when Temporal cannot be reached, the dispatcher will. */
async function startCommitted(ctx: AppContext, em: EntityManager, source: KnowledgeSource): Promise<void> {
  try {
    await startIngestionWorkflow(ctx.temporal, ctx.config, {
      sourceId: source.id,
      accountId: source.account,
      generation: source.ingestGeneration,
    });
    await em.nativeUpdate(
      KnowledgeSource,
      { id: source.id, ingestGeneration: source.ingestGeneration },
      { workflowStartedAt: new Date() },
    );
  } catch (error) {
    ctx.logger.warn({ err: error, sourceId: source.id }, 'ingestion not started yet; the dispatcher will');
  }
}

export async function listSources(em: EntityManager, owner: Owner, baseId: string, query: ListSourcesInput) {
  await findKnowledgeBase(em, owner, baseId);
  const where = { knowledgeBaseId: baseId, ...(query.status ? { status: query.status } : {}) };
  const [items, total] = await em.findAndCount(KnowledgeSource, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: query.limit,
    offset: query.offset,
  });
  return { data: items.map(sourceView), total };
}

/**
 * DELETE: the source, its content and its chunks, in one transaction (the foreign keys cascade), so
 * search finds none of them once this answers. A run of its ingestion still under way finds it gone
 * at its next step and writes nothing (each step checks the source's generation).
 */
export async function deleteSource(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  baseId: string,
  id: string,
) {
  await em.transactional(async (tem) => {
    const source = await findSource(tem, owner, baseId, id);
    // of concurrent deletes, one deletes the row; the others, which waited on it, delete nothing: 404
    const deleted = await tem
      .getConnection()
      .execute(
        'delete from knowledge_sources where id = ? returning id',
        [source.id],
        'all',
        tem.getTransactionContext(),
      );
    if (deleted.length === 0) throw notFound('Knowledge source');
  });
  await ctx.temporal.workflow
    .getHandle(id)
    .terminate('source deleted')
    .catch(() => undefined);
  return { deleted: true as const, id };
}

/**
 * POST …/refresh: a ready or failed source is ingested again under its next generation (a URL is
 * fetched again); its current chunks are searched until the new ones replace them. 409 while it is
 * being ingested.
 */
export async function refreshSource(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  baseId: string,
  id: string,
) {
  const source = await findSource(em, owner, baseId, id);
  const updated = await em.nativeUpdate(
    KnowledgeSource,
    { id: source.id, status: { $in: ['ready', 'failed'] } },
    {
      status: 'pending',
      ingestGeneration: Math.max(source.generation, source.ingestGeneration) + 1,
      workflowStartedAt: null,
      updatedAt: new Date(),
    },
  );
  if (updated === 0)
    throw conflict(`Knowledge source ${id} is being indexed; refresh it once it is ready or failed`);
  const refreshed = await findSource(em.fork(), owner, baseId, id);
  await startCommitted(ctx, em, refreshed);
  return sourceView(refreshed);
}
