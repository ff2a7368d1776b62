import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../events/outbox';
import { startIngestionWorkflow } from './ingestion-workflows';

/** A source the API has not started the ingestion of after this long is started here. */
const INGESTION_START_GRACE_SECONDS = 5;

interface UnstartedSource {
  id: string;
  account_id: string;
  ingest_generation: number;
}

/** Knowledge's side of the outbox: start the ingestion of a committed source (or refresh) whose start did not happen. */
export function createKnowledgeOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'knowledge',
    startPending(startClaimed) {
      return startClaimed<UnstartedSource>({
        table: 'knowledge_sources',
        claimSql: `select id, account_id, ingest_generation from knowledge_sources
           where workflow_started_at is null and status = 'pending'
             and updated_at < now() - make_interval(secs => ?)
           order by created_at limit ? for update skip locked`,
        bindings: [INGESTION_START_GRACE_SECONDS, OUTBOX_BATCH],
        start: (r) =>
          startIngestionWorkflow(temporal, config, {
            sourceId: r.id,
            accountId: r.account_id,
            generation: r.ingest_generation,
          }),
      });
    },
  };
}
