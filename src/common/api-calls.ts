import type { Environment } from './owner';

/** One answered platform API request, as console analytics counts it. */
export interface ApiCall {
  accountId: string;
  environment: Environment;
  /** HTTP method, upper case. */
  method: string;
  /** The route template with its base path, e.g. `/api/v2/developers/tools/:id`. */
  route: string;
  status: number;
  /** The error body's `code` (status ≥ 400 only). */
  errorCode?: string;
  /** The error body's message (status ≥ 400 only). */
  errorMessage?: string;
  /** From the request's arrival to the last byte of the answer. */
  latencyMs: number;
  /** When it was answered (ms since the epoch); default now. */
  at?: number;
}

/**
 * Counts platform API calls in memory (per account, environment, minute, route, status and error
 * code) and writes the counts to the database on a timer and at close, never on the request path.
 * The analytics area implements it.
 */
export interface ApiCallRecorder {
  /** False when recording is turned off (`ANALYTICS_RECORDING=off`): `record` does nothing. */
  readonly enabled: boolean;
  record(call: ApiCall): void;
  /** Writes every count recorded so far; resolves once they are committed. */
  flush(): Promise<void>;
  /** Stops the timer and flushes what is left. */
  close(): Promise<void>;
}
