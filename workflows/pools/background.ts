/**
 * The `background` pool's workflows (src/temporal/task-queues.ts): reviews, agent tests, call
 * analysis, marketplace removals, housekeeping, the health ping, outbound campaigns and knowledge sources' ingestion.
 */
export * from '../analyze-session';
export * from '../campaign';
export * from '../housekeeping';
export * from '../ingest-knowledge-source';
export * from '../remove-marketplace-item';
export * from '../review-marketplace-item';
export * from '../review-persona';
export * from '../system-ping';
export * from '../test-run';
