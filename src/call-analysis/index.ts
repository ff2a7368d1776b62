export { mountCallAnalysisRoutes } from './analysis.routes';
export { createAnalysisOutboxHandler } from './outbox';
export { ANALYSIS_STATUSES, type AnalysisStatus } from './statuses';
