import { ApiCallError } from './client';

/**
 * How the console's queries retry (docs/console.md "When the API says wait"): a 4xx will not get
 * better by asking again, except a rate limit, asked once more after its Retry-After (when that is
 * at most 30 s); a 5xx or a network failure twice, after its Retry-After or 1 s, then 2 s.
 */
export function shouldRetry(count: number, error: unknown): boolean {
  if (error instanceof ApiCallError && error.status === 429)
    return count < 1 && (error.retryAfter ?? 60) <= 30;
  return !(error instanceof ApiCallError && error.status < 500) && count < 2;
}

export function retryDelayMs(count: number, error: unknown): number {
  return error instanceof ApiCallError && error.retryAfter !== null
    ? error.retryAfter * 1000
    : Math.min(1000 * 2 ** count, 8000);
}

/** An answer that says "wait and ask again": a rate limit or a busy service. */
export const isWaitAnswer = (error: unknown): error is ApiCallError =>
  error instanceof ApiCallError && (error.status === 429 || error.status === 503);
