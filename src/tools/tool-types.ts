/**
 * The machine-readable reason of a failed call, where one is given: the tool's answer passed its
 * cap (src/outbound/answer-limits.ts), so the call failed instead of answering part of it.
 */
export type ToolErrorCode = 'RESPONSE_TOO_LARGE';

/** What a tool call answers: its result or error, with its duration. */
export interface ToolExecutionResult {
  success: boolean;
  result?: unknown;
  error?: string;
  errorCode?: ToolErrorCode;
  durationMs: number;
  statusCode?: number;
}

/** What one run produced, before events and timing are added. */
export type Outcome =
  | { success: true; result: unknown; statusCode?: number }
  | { success: false; error: string; errorCode?: ToolErrorCode; statusCode?: number; retryable?: boolean };
