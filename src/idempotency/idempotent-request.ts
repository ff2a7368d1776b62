import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { CoreContext } from '../common/context';
import type { Owner } from '../common/owner';
import { ApiError, conflict } from '../http/errors';
import { IdempotencyKeys, RENEW_CLAIM_EVERY_MS } from './idempotency.service';

/** The request header, as Express names it (lower case). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** The header a replayed answer carries. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** A key: 1-255 printable ASCII characters (a UUID v4 is the usual choice). */
export const IdempotencyKey = z
  .string()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII characters')
  .meta({
    description:
      'Makes the create safe to retry: the same key and body within 24 h answers the first answer again (`Idempotent-Replayed: true`) and creates nothing. 1-255 printable ASCII characters, e.g. a UUID. Keys are per account and environment; the same key with another body is a 409.',
    example: '6f1c2d0e-9a57-4f0b-8d5e-3c1b2a4f9e77',
  });

/** The header as the pipeline parses it (any other header passes). */
export const IdempotencyKeyHeaders = z.object({ [IDEMPOTENCY_KEY_HEADER]: IdempotencyKey.optional() });
/** The header as OpenAPI documents it. */
export const IdempotencyKeyHeaderDoc = z.object({ 'Idempotency-Key': IdempotencyKey.optional() });
/** The response header of a replay, as OpenAPI documents it. */
export const ReplayedHeaderDoc = z.object({
  [REPLAYED_HEADER]: z
    .literal('true')
    .optional()
    .meta({ description: 'Present on an answer replayed for a repeated Idempotency-Key' }),
});

/** A route's answer: its status and the body sent as JSON. */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

/**
 * Runs a create route's handler under an Idempotency-Key; answers what the pipeline should send,
 * or undefined when the answer was sent already (a replay, or a handler that wrote it itself).
 */
export type IdempotentRunner = (
  req: Request,
  res: Response,
  owner: Owner,
  key: string,
  run: () => Promise<RouteAnswer | undefined>,
) => Promise<RouteAnswer | undefined>;

/** JSON with every object's keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, item]) => `${JSON.stringify(k)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of the method, path, query and canonical body: what "the same request" means for a key. */
export function requestFingerprint(req: Request): string {
  const path = req.originalUrl.split('?')[0];
  return createHash('sha256')
    .update([req.method, path, canonicalJson(req.query), canonicalJson(req.body ?? {})].join('\n'))
    .digest('hex');
}

/** Sends a stored answer again, byte for byte, with `Idempotent-Replayed: true`. */
function replay(res: Response, status: number, body: string): void {
  if (status >= 400) {
    // console analytics count a replayed error as the error it is
    const error = JSON.parse(body) as { code?: string; error?: string };
    res.locals.errorCode = error.code;
    res.locals.errorMessage = error.error;
  }
  res.setHeader(REPLAYED_HEADER, 'true');
  res.status(status).type('application/json').send(body);
}

/**
 * Idempotent creates (docs/api-contract.md "Idempotent requests", Stripe's semantics): the key is
 * claimed before the handler runs; the handler's answer, or the 4xx it threw, is stored for replay;
 * a 5xx or crash forgets the key so a retry runs again.
 */
export function idempotentRequests(ctx: Pick<CoreContext, 'orm' | 'encryptor' | 'logger'>): IdempotentRunner {
  const keys = new IdempotencyKeys(ctx);
  const store = async (
    held: { id: string; claim: string },
    owner: Owner,
    key: string,
    answer: { status: number; body: string },
  ) => {
    // the answer is sent whether or not it could be stored: the resource exists, and the client
    // must hear of it; an unstored key is taken over once abandoned (ABANDONED_AFTER_S)
    const stored = await keys.complete(held, owner, key, answer).catch((err: unknown) => {
      ctx.logger.warn({ err }, 'could not store the answer of an idempotent request');
      return true;
    });
    if (!stored) ctx.logger.warn('an idempotent request finished after its key was taken over');
  };
  return async (req, res, owner, key, run) => {
    const claim = await keys.claim(owner, key, requestFingerprint(req));
    if (claim.kind === 'mismatch') {
      throw conflict(
        'This Idempotency-Key was already used with another request (method, path or body); use a new key for a new request',
      );
    }
    if (claim.kind === 'in_progress') {
      res.setHeader('Retry-After', '1');
      throw conflict('A request with this Idempotency-Key is in progress; retry shortly');
    }
    if (claim.kind === 'replay') {
      replay(res, claim.status, claim.body);
      return undefined;
    }
    let answer: RouteAnswer | undefined;
    const renewal = setInterval(() => {
      keys.renew(claim).catch((err: unknown) => {
        ctx.logger.warn({ err }, 'could not renew the claim of an idempotent request');
      });
    }, RENEW_CLAIM_EVERY_MS);
    try {
      answer = await run();
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) {
        await store(claim, owner, key, { status: error.status, body: JSON.stringify(error.toBody()) });
      } else {
        await keys.release(claim).catch((err: unknown) => {
          ctx.logger.warn({ err }, 'could not release the key of a failed idempotent request');
        });
      }
      throw error;
    } finally {
      clearInterval(renewal);
    }
    // a handler that wrote its answer itself left nothing to replay: forget the key
    if (!answer) await keys.release(claim);
    else await store(claim, owner, key, { status: answer.status, body: JSON.stringify(answer.body) });
    return answer;
  };
}
