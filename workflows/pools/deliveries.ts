/** The `deliveries` pool's workflows (src/temporal/task-queues.ts): webhook deliveries. */
export * from '../deliver-webhook';
