import { ActivityFailure, ApplicationFailure, log, patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { IngestionRef, StepOutcome } from '../src/knowledge/ingestion-steps';

export interface IngestKnowledgeSourceResult {
  status: 'ready' | 'failed' | 'gone';
  chunks: number;
}

/** Database steps: safe to repeat, retried for as long as the database may take to come back. */
const { beginIngestion, finishIngestion } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 20,
  },
});
/** Reading the content (a URL fetched, a document extracted and chunked): bounded, retried a few times. */
const { fetchUrlSource, indexSourceChunks } = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

/**
 * Embedding the chunks (hybrid retrieval, only with an embeddings provider and pgvector): a provider
 * outage is retried a few times (about 7 s of backoff), then the source is made ready without all its
 * vectors, searched by full text; the batches embedded so far are kept.
 */
const { embedSourceChunks } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 4,
  },
});

/** Why a step failed for good, from the activity's last failure. */
function failureReason(error: ActivityFailure): string {
  const cause = error.cause;
  const message =
    cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : 'unknown failure';
  return `The source could not be indexed: ${message}`;
}

/** Reads the content (a URL's page fetched; a text's or file's is stored already), then extracts and chunks it. */
async function readAndIndex(
  ref: IngestionRef,
  source: NonNullable<Awaited<ReturnType<typeof beginIngestion>>>,
) {
  if (source.type === 'url' && source.url) {
    const fetched: StepOutcome = await fetchUrlSource({ ...ref, url: source.url, crawl: source.crawl });
    if (fetched.kind !== 'done') return fetched;
  }
  return indexSourceChunks(ref);
}

/**
 * A knowledge source's ingestion (workflow id = the `ks_…` id; the background pool): mark it
 * indexing, read its content (a URL fetched through the outbound guard), extract, chunk and write the
 * chunks under this run's generation, embed them (with an embeddings provider and pgvector; runs
 * recorded before this step replay without it), then make that generation the one searched (`ready`) or record
 * why it failed (`failed`), with its event. A content that cannot be read is a failed source, not a
 * failed workflow; a source deleted or refreshed again meanwhile ends the run (`gone`).
 */
export async function ingestKnowledgeSourceWorkflow(ref: IngestionRef): Promise<IngestKnowledgeSourceResult> {
  const source = await beginIngestion(ref);
  if (!source) return { status: 'gone', chunks: 0 };
  let outcome: StepOutcome;
  try {
    outcome = await readAndIndex(ref, source);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    outcome = { kind: 'failed', reason: failureReason(error) };
  }
  if (outcome.kind === 'gone') return { status: 'gone', chunks: 0 };
  if (outcome.kind === 'done' && patched('knowledge-embeddings')) {
    await embedSourceChunks(ref).catch((error: unknown) => {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('chunks not embedded: the source is searched by full text', { reason: error.cause?.message });
    });
  }
  await finishIngestion({ ...ref, outcome });
  return outcome.kind === 'done'
    ? { status: 'ready', chunks: outcome.chunks }
    : { status: 'failed', chunks: 0 };
}
