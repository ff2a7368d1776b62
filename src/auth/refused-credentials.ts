import type { IncomingMessage } from 'node:http';
import express, { type Request } from 'express';
import { ApiError } from '../http/errors';
import type { HeaderSink, RateLimits } from '../ratelimit/rate-limits';

/**
 * A refusal that asks the client to come back after `retryAfterSeconds`: the address's budget for
 * refused credentials is spent (429), or its counters did not answer (503).
 */
export class RetryableRefusal extends ApiError {
  constructor(
    error: ApiError,
    readonly retryAfterSeconds: number,
  ) {
    super(error.status, error.code, error.message, error.validationErrors, error.extra);
  }
}

/** Express's `trust proxy` setting for TRUST_PROXY: the proxies it names, or none (the peer is the client). */
export function trustProxySetting(trustProxy: string[]): string[] | false {
  return trustProxy.length ? trustProxy : false;
}

/** One Express app per TRUST_PROXY list: it only lends its `req.ip` to requests Express never sees. */
const addressApps = new WeakMap<string[], express.Express>();

/**
 * The client address of a request Express never sees (a WebSocket upgrade), derived exactly as the
 * REST API's `req.ip`: Express's own getter (proxy-addr) under the same `trust proxy` setting, so
 * X-Forwarded-For counts only from a proxy TRUST_PROXY names.
 */
export function clientAddress(req: IncomingMessage, trustProxy: string[]): string {
  let app = addressApps.get(trustProxy);
  if (!app) {
    app = express();
    app.set('trust proxy', trustProxySetting(trustProxy));
    addressApps.set(trustProxy, app);
  }
  const view = Object.create(app.request, {
    headers: { value: req.headers },
    socket: { value: req.socket },
  }) as Request;
  return view.ip ?? 'unknown';
}

/**
 * Spends one point of the address's budget for refused credentials (ANONYMOUS_RATE_LIMIT), as the
 * REST API does before its 401, for a request with no Express response (a WebSocket upgrade). Once
 * the budget is spent this throws a RetryableRefusal (429) carrying its Retry-After.
 */
export async function spendRefusedCredential(
  rateLimits: RateLimits,
  req: IncomingMessage,
  trustProxy: string[],
): Promise<void> {
  const headers = new Map<string, string>();
  const sink: HeaderSink = {
    setHeader: (name, value) => {
      headers.set(name.toLowerCase(), value);
    },
  };
  try {
    await rateLimits.consumeAnonymous(sink, clientAddress(req, trustProxy));
  } catch (error) {
    const retryAfter = Number(headers.get('retry-after'));
    if (error instanceof ApiError && Number.isInteger(retryAfter))
      throw new RetryableRefusal(error, retryAfter);
    throw error;
  }
}
