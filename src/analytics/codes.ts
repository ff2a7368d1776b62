/** Error codes of console analytics: API error codes by status, and the runtime failures. */

/** Failures of work the platform runs (not API answers), listed by `/analytics/errors`. */
export const RUNTIME_FAILURE_CODES = ['TOOL_FAILED', 'WORKFLOW_FAILED', 'DELIVERY_FAILED'] as const;
export type RuntimeFailureCode = (typeof RUNTIME_FAILURE_CODES)[number];

/** Shown when the latest failure left no message. */
export const RUNTIME_FAILURE_MESSAGES: Record<RuntimeFailureCode, string> = {
  TOOL_FAILED: 'A tool run failed',
  WORKFLOW_FAILED: 'A workflow execution failed',
  DELIVERY_FAILED: 'A webhook delivery failed after its last attempt',
};

/**
 * The code of an error answer that did not go through the error handler (every ApiError names its
 * own): the code of its status (docs/api-contract.md "Error codes").
 */
export function errorCodeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'VALIDATION_FAILED';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 429:
      return 'RATE_LIMIT_EXCEEDED';
    case 502:
      return 'UPSTREAM_ERROR';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED';
  }
}
