import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';
import type { KnowledgeLanguage, SourceStatus, SourceType } from './languages';

/**
 * A knowledge base (`kb_…`, docs/knowledge.md "Knowledge bases and sources"): a named set of sources
 * whose chunks are searched with the text-search configuration of its `language`.
 */
export class KnowledgeBase {
  [OptionalProps]?: 'id' | 'description' | 'createdAt' | 'updatedAt';
  id: string = newId('kb');
  account!: string;
  environment!: Environment;
  name!: string;
  description: string | null = null;
  language!: KnowledgeLanguage;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const KnowledgeBaseSchema = new EntitySchema<KnowledgeBase>({
  class: KnowledgeBase,
  tableName: 'knowledge_bases',
  indexes: [{ name: 'knowledge_bases_owner_index', properties: ['account', 'environment', 'createdAt'] }],
  properties: {
    ...ownedResourceProperties(),
    name: { type: 'string', length: 200 },
    description: { type: 'text', nullable: true },
    language: { type: 'string', length: 32 },
    ...timestampProperties(),
  },
});

/** A URL source's crawl settings (the crawler follows them; until then the one page is read). */
export interface CrawlSettings {
  maxDepth: number;
  maxPages: number;
}

/**
 * A source of a knowledge base (`ks_…`): a text, a URL or an uploaded file. Its content lives in
 * `knowledge_source_documents` (bytea), its chunks in `knowledge_chunks` under a generation: the
 * chunks of `generation` are the ones searched; an ingestion (workflow id = the source id) writes
 * `ingestGeneration`'s and then makes it current in one statement.
 */
export class KnowledgeSource {
  [OptionalProps]?:
    | 'id'
    | 'url'
    | 'crawl'
    | 'contentType'
    | 'status'
    | 'failureReason'
    | 'chunkCount'
    | 'bytes'
    | 'generation'
    | 'ingestGeneration'
    | 'workflowStartedAt'
    | 'indexedAt'
    | 'createdAt'
    | 'updatedAt';
  id: string = newId('ks');
  account!: string;
  environment!: Environment;
  knowledgeBaseId!: string;
  type!: SourceType;
  name!: string;
  url: string | null = null;
  crawl: CrawlSettings | null = null;
  contentType: string | null = null;
  status: SourceStatus = 'pending';
  failureReason: string | null = null;
  chunkCount = 0;
  bytes = 0;
  generation = 0;
  ingestGeneration = 1;
  workflowStartedAt: Date | null = null;
  indexedAt: Date | null = null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const KnowledgeSourceSchema = new EntitySchema<KnowledgeSource>({
  class: KnowledgeSource,
  tableName: 'knowledge_sources',
  indexes: [{ name: 'knowledge_sources_base_index', properties: ['knowledgeBaseId', 'createdAt'] }],
  properties: {
    ...ownedResourceProperties(),
    knowledgeBaseId: { type: 'string', length: 40 },
    type: { type: 'string', length: 8 },
    name: { type: 'string', length: 300 },
    url: { type: 'text', nullable: true },
    crawl: { type: 'json', columnType: 'jsonb', nullable: true },
    contentType: { type: 'string', length: 200, nullable: true },
    status: { type: 'string', length: 16 },
    failureReason: { type: 'text', nullable: true },
    chunkCount: { type: 'integer' },
    bytes: { type: 'integer' },
    generation: { type: 'integer' },
    ingestGeneration: { type: 'integer' },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    indexedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    ...timestampProperties(),
  },
});
