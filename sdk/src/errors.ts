/**
 * Typed errors: one class per error `code` the platform answers with (`{ success: false, error,
 * code, validationErrors? }`, docs/api-contract.md "Error codes"), each carrying the HTTP `status`,
 * the `code` and the `requestId` (the `X-Request-Id` of the answer, to quote to support).
 */

/** Every error code of the API. */
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

/** The base of every error this SDK throws. */
export class VoicePlatformError extends Error {
  override name = 'VoicePlatformError';
}

/** The API answered with an error. */
export class ApiError extends VoicePlatformError {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    /** The platform's code; `UNKNOWN` when the answer had no error body (a proxy's 502). */
    readonly code: ErrorCode | 'UNKNOWN',
    message: string,
    readonly requestId: string | null,
    /** One `<field>: <problem>` entry per problem (`VALIDATION_FAILED`, some `CONFLICT`s). */
    readonly validationErrors: string[] = [],
    /** The whole error body, for fields of one operation (e.g. `candidates`). */
    readonly body: unknown = undefined,
    /** Seconds to wait, from `Retry-After`, when the answer had one. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

const errorClass = <C extends ErrorCode>(name: string) =>
  class extends ApiError {
    override name = name;
    declare readonly code: C;
  };

export class UnauthorizedError extends errorClass<'UNAUTHORIZED'>('UnauthorizedError') {}
export class ForbiddenError extends errorClass<'FORBIDDEN'>('ForbiddenError') {}
export class NotFoundError extends errorClass<'NOT_FOUND'>('NotFoundError') {}
export class ValidationFailedError extends errorClass<'VALIDATION_FAILED'>('ValidationFailedError') {}
export class ConflictError extends errorClass<'CONFLICT'>('ConflictError') {}
export class PlanLimitReachedError extends errorClass<'PLAN_LIMIT_REACHED'>('PlanLimitReachedError') {}
export class RateLimitExceededError extends errorClass<'RATE_LIMIT_EXCEEDED'>('RateLimitExceededError') {}
export class QuotaExceededError extends errorClass<'QUOTA_EXCEEDED'>('QuotaExceededError') {}
export class GoneError extends errorClass<'GONE'>('GoneError') {}
export class PayloadTooLargeError extends errorClass<'PAYLOAD_TOO_LARGE'>('PayloadTooLargeError') {}
export class UnsupportedMediaTypeError extends errorClass<'UNSUPPORTED_MEDIA_TYPE'>(
  'UnsupportedMediaTypeError',
) {}
export class ServiceUnavailableError extends errorClass<'SERVICE_UNAVAILABLE'>('ServiceUnavailableError') {}
export class UpstreamError extends errorClass<'UPSTREAM_ERROR'>('UpstreamError') {}
export class ResponseTooLargeError extends errorClass<'RESPONSE_TOO_LARGE'>('ResponseTooLargeError') {}
export class InternalError extends errorClass<'INTERNAL'>('InternalError') {}

/** The class of each code. */
export const ERROR_CLASSES: Record<ErrorCode, typeof ApiError> = {
  UNAUTHORIZED: UnauthorizedError,
  FORBIDDEN: ForbiddenError,
  NOT_FOUND: NotFoundError,
  VALIDATION_FAILED: ValidationFailedError,
  CONFLICT: ConflictError,
  PLAN_LIMIT_REACHED: PlanLimitReachedError,
  RATE_LIMIT_EXCEEDED: RateLimitExceededError,
  QUOTA_EXCEEDED: QuotaExceededError,
  GONE: GoneError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
  UPSTREAM_ERROR: UpstreamError,
  RESPONSE_TOO_LARGE: ResponseTooLargeError,
  INTERNAL: InternalError,
};

/** The code an answer without an error body stands for, by status. */
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  500: 'INTERNAL',
  502: 'UPSTREAM_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** The connection failed or was cut before an answer came (after every retry). */
export class ConnectionError extends VoicePlatformError {
  override name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within the request's timeout (after every retry). */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/** A webhook delivery whose signature did not verify (`client.webhooks.unwrap`). */
export class WebhookVerificationError extends VoicePlatformError {
  override name = 'WebhookVerificationError';
}

/** The typed error of an error answer. */
export function errorFromResponse(
  status: number,
  headers: Headers,
  body: unknown,
  retryAfter: number | null,
): ApiError {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const requestId = headers.get('x-request-id');
  const named = typeof record.code === 'string' ? (record.code as ErrorCode) : undefined;
  const code = named && named in ERROR_CLASSES ? named : CODE_OF_STATUS[status];
  const message =
    typeof record.error === 'string'
      ? record.error
      : typeof record.message === 'string'
        ? record.message
        : `HTTP ${status}`;
  const validationErrors = Array.isArray(record.validationErrors)
    ? record.validationErrors.filter((e): e is string => typeof e === 'string')
    : [];
  const Class = code ? ERROR_CLASSES[code] : ApiError;
  return new Class(status, code ?? 'UNKNOWN', message, requestId, validationErrors, body, retryAfter);
}
