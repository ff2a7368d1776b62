import type { Request, Response } from 'express';
import type { ApiCallRecorder } from '../common/api-calls';
import type { Owner } from '../common/owner';

/**
 * What the app leaves in `res.locals` for analytics: `startedAt` (process.hrtime.bigint() when the
 * request arrived) and, for error answers, the error body's `errorCode` and `errorMessage`.
 */
export interface ObservedLocals {
  startedAt?: bigint;
  errorCode?: string;
  errorMessage?: string;
}

/**
 * The platform root's `observe` hook: once the key is known, counts the call when its answer has
 * been sent (status, error code, latency from arrival), in memory only.
 */
export function observeApiCalls(recorder: ApiCallRecorder) {
  return (req: Request, res: Response, owner: Owner, route: string): void => {
    if (!recorder.enabled) return;
    const locals = res.locals as ObservedLocals;
    const started = locals.startedAt ?? process.hrtime.bigint();
    const method = req.method;
    res.once('finish', () => {
      recorder.record({
        accountId: owner.accountId,
        environment: owner.environment,
        method,
        route,
        status: res.statusCode,
        errorCode: res.statusCode >= 400 ? locals.errorCode : undefined,
        errorMessage: res.statusCode >= 400 ? locals.errorMessage : undefined,
        latencyMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
  };
}
