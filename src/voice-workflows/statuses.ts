/**
 * Each status union of the workflows area, declared once: the TS types and the zod enums derive
 * from these. No imports: the interpreter (workflow code) uses these types.
 */

/** An execution's status. */
export const EXECUTION_STATUSES = ['running', 'completed', 'failed'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
/** How a run ends (a trace, a dry run). */
export type FinalStatus = Exclude<ExecutionStatus, 'running'>;

/** A step's (one node's) status. */
export const STEP_STATUSES = ['completed', 'failed', 'skipped', 'cancelled'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
