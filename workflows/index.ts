/**
 * Every workflow of the platform (replay tests and types use this). A worker registers its pools'
 * workflows instead (workflows/pools/, one task queue each). Keep workflow code deterministic: no
 * I/O, only activities.
 */
export * from './analyze-session';
export * from './campaign';
export * from './deliver-webhook';
export * from './housekeeping';
export * from './ingest-knowledge-source';
export * from './phone-call';
export * from './recover-webhook-events';
export * from './remove-marketplace-item';
export * from './review-marketplace-item';
export * from './review-persona';
export * from './run-voice-workflow';
export * from './system-ping';
export * from './test-run';
export * from './voice-session';
