/** The `deliveries` pool's workflows (src/temporal/task-queues.ts): webhook deliveries and recoveries. */
export * from '../deliver-webhook';
export * from '../recover-webhook-events';
