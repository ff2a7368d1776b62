/** What a tool call answers: its result or error, with its duration. */
export interface ToolExecutionResult {
  success: boolean;
  result?: unknown;
  error?: string;
  durationMs: number;
  statusCode?: number;
}

/** What one run produced, before events and timing are added. */
export type Outcome =
  | { success: true; result: unknown; statusCode?: number }
  | { success: false; error: string; statusCode?: number; retryable?: boolean };
