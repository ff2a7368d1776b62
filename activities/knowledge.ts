import { embedSourceChunks } from '../src/knowledge/chunk-embeddings';
import {
  beginIngestion,
  fetchUrlSource,
  finishIngestion,
  type IngestionRef,
  indexSourceChunks,
} from '../src/knowledge/ingestion-steps';
import type { CrawlSettings } from '../src/knowledge/knowledge.entity';
import type { ActivityDeps } from './deps';

/**
 * A knowledge source's ingestion steps (workflows/ingest-knowledge-source.ts), each idempotent: the
 * chunks are upserted by (source, generation, ordinal), and the last step switches the generation
 * searched and emits the event once.
 */
export function createKnowledgeActivities(deps: ActivityDeps) {
  return {
    beginIngestion: (ref: IngestionRef) => beginIngestion(deps, ref),
    fetchUrlSource: (input: IngestionRef & { url: string; crawl: CrawlSettings | null }) =>
      fetchUrlSource(deps, input),
    indexSourceChunks: (ref: IngestionRef) => indexSourceChunks(deps, ref),
    embedSourceChunks: (ref: IngestionRef) => embedSourceChunks(deps, ref),
    finishIngestion: (input: Parameters<typeof finishIngestion>[1]) => finishIngestion(deps, input),
  };
}
