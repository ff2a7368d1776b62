import { z } from 'zod';

/** Error codes (docs/api-contract.md "Error codes"). */
export const ERROR_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'VALIDATION_FAILED',
  'CONFLICT',
  'PLAN_LIMIT_REACHED',
  'RATE_LIMIT_EXCEEDED',
  'QUOTA_EXCEEDED',
  'GONE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_ERROR',
  'RESPONSE_TOO_LARGE',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error with a place in the contract: its status, code and message reach the client as they are. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly validationErrors?: string[],
    /** More fields of the error body (e.g. `candidates` of POST /workflows/trigger). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return {
      success: false,
      error: this.message,
      code: this.code,
      ...(this.validationErrors ? { validationErrors: this.validationErrors } : {}),
      ...this.extra,
    };
  }
}

export const unauthorized = (message = 'Missing or invalid credentials') =>
  new ApiError(401, 'UNAUTHORIZED', message);
export const forbidden = (message: string) => new ApiError(403, 'FORBIDDEN', message);
export const notFound = (what = 'Resource') => new ApiError(404, 'NOT_FOUND', `${what} not found`);
export const validationFailed = (validationErrors: string[], message = 'Request validation failed') =>
  new ApiError(400, 'VALIDATION_FAILED', message, validationErrors);
export const conflict = (message: string, validationErrors?: string[]) =>
  new ApiError(409, 'CONFLICT', message, validationErrors);
export const planLimitReached = (message: string) => new ApiError(403, 'PLAN_LIMIT_REACHED', message);

export const ErrorBodySchema = z
  .strictObject({
    success: z.literal(false),
    error: z.string().meta({ description: 'Human-readable message' }),
    code: z.enum(ERROR_CODES).meta({ description: 'Machine-readable code', example: 'VALIDATION_FAILED' }),
    validationErrors: z
      .array(z.string())
      .optional()
      .meta({ description: 'One `<field>: <problem>` entry per problem' }),
    candidates: z
      .array(z.object({ workflowId: z.string(), name: z.string(), command: z.string(), score: z.number() }))
      .optional()
      .meta({ description: 'POST /workflows/trigger: the closest workflows (404) or the tied ones (409)' }),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
