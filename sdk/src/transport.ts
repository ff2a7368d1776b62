import { ApiError, ConnectionError, errorFromResponse, TimeoutError } from './errors';

/** Per-request options, the last argument of every method. */
export interface RequestOptions {
  /** Cancels the request (and its retries). */
  signal?: AbortSignal;
  /** Each attempt's timeout (default: the client's, 60 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default: the client's, 2). */
  maxRetries?: number;
  /** A create's `Idempotency-Key` (default: a new UUID per call, the same on each of its retries). */
  idempotencyKey?: string;
  /** More headers for this request. */
  headers?: Record<string, string>;
  /** More query parameters (for an operation whose argument is a body). */
  query?: Record<string, unknown>;
}

export interface TransportOptions {
  baseUrl: string;
  /** The bearer credential: an API key (`pk_…`), or an ID token for the console API. */
  apiKey?: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
}

export interface ApiRequest {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  options?: RequestOptions;
  /**
   * Whether a request that may have reached the server can be sent again: true unless it is a POST
   * that takes no `Idempotency-Key`, which is then retried only on 429 (refused before it ran).
   */
  idempotent?: boolean;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

const MAX_DELAY_MS = 8_000;
const BASE_DELAY_MS = 250;

/** `Retry-After` in seconds (a number or an HTTP date), or null. */
function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get('retry-after');
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

/**
 * Whether an error answer is worth another attempt: 429, a 5xx, or a 409 that says its
 * Idempotency-Key's first request is still in flight (the platform sends it with `Retry-After`;
 * a key reused with another body is a 409 without one, and final).
 */
function retryable(error: ApiError, idempotent: boolean): boolean {
  if (error.status === 429) return true;
  if (!idempotent) return false;
  if (error.status >= 500) return true;
  return error.status === 409 && error.retryAfter !== null;
}

/** Exponential backoff with full jitter, or the server's `Retry-After` when it gave one. */
export function retryDelayMs(attempt: number, retryAfter: number | null): number {
  if (retryAfter !== null) return Math.min(retryAfter * 1000, 60_000);
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (!text) return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Sends requests with the client's credential, retries and timeouts. */
export class Transport {
  constructor(readonly options: TransportOptions) {}

  url(path: string, query?: Record<string, unknown>): string {
    return `${this.options.baseUrl.replace(/\/+$/, '')}${path}${queryString(query)}`;
  }

  headers(extra?: Record<string, string>): Record<string, string> {
    return {
      accept: 'application/json',
      ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      ...this.options.headers,
      ...extra,
    };
  }

  /**
   * One request, retried on a cut connection, a timeout, 429, 5xx and an in-flight 409. A POST (a
   * create) carries an `Idempotency-Key`, the same on every retry, so a retry whose first attempt
   * the server committed answers that first result instead of creating twice. A POST whose route
   * takes no key (an action such as a turn) is retried only on 429.
   */
  async request(request: ApiRequest): Promise<ApiAnswer> {
    const options = request.options ?? {};
    const maxRetries = options.maxRetries ?? this.options.maxRetries;
    const idempotent = request.idempotent ?? true;
    const headers = this.headers(options.headers);
    if (request.method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? crypto.randomUUID();
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const init = {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    };
    const url = this.url(request.path, { ...request.query, ...options.query });
    for (let attempt = 0; ; attempt++) {
      let failure: Error;
      try {
        const answer = await this.attempt(url, init, options);
        if (answer.status < 400) return answer;
        const error = errorFromResponse(
          answer.status,
          answer.headers,
          answer.body,
          retryAfterSeconds(answer.headers),
        );
        if (!retryable(error, idempotent) || attempt >= maxRetries) throw error;
        failure = error;
      } catch (error) {
        if (error instanceof ApiError || options.signal?.aborted) throw error;
        if (!idempotent || attempt >= maxRetries) throw error;
        failure = error as Error;
      }
      const retryAfter = failure instanceof ApiError ? failure.retryAfter : null;
      await sleep(retryDelayMs(attempt, retryAfter), options.signal);
    }
  }

  /** One attempt: a ConnectionError or TimeoutError when no answer came. */
  private async attempt(url: string, init: RequestInit, options: RequestOptions): Promise<ApiAnswer> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const response = await this.options.fetch(url, { ...init, signal });
      return { status: response.status, headers: response.headers, body: await readBody(response) };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted) throw new TimeoutError(`No answer within ${timeoutMs} ms`, { cause: error });
      throw new ConnectionError(`The connection failed: ${(error as Error).message}`, { cause: error });
    }
  }
}
