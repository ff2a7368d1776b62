/** The `conversations` pool's workflows (src/temporal/task-queues.ts): live sessions and phone calls. */
export * from '../phone-call';
export * from '../voice-session';
