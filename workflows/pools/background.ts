/**
 * The `background` pool's workflows (src/temporal/task-queues.ts): reviews, agent tests, call
 * analysis, marketplace removals, housekeeping, the health ping and outbound campaigns.
 */
export * from '../analyze-session';
export * from '../campaign';
export * from '../housekeeping';
export * from '../remove-marketplace-item';
export * from '../review-marketplace-item';
export * from '../review-persona';
export * from '../system-ping';
export * from '../test-run';
