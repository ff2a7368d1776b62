/**
 * An analysis's status: `pending` until its workflow records it; `completed` (the model's answer
 * passed the checks), `failed` (it did not, twice, or the model could not be asked) or `skipped` (no
 * LLM provider configured when the session ended).
 */
export const ANALYSIS_STATUSES = ['pending', 'completed', 'failed', 'skipped'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];
