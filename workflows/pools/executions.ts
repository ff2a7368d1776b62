/** The `executions` pool's workflows (src/temporal/task-queues.ts): voice-workflow executions. */
export * from '../run-voice-workflow';
