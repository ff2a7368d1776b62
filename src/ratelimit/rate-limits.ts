import type { Response } from 'express';
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Plan } from '../config/env';
import { ApiError } from '../http/errors';
import { RATE_CLASSES, type RateClass } from './classes';

/** Requests per minute of each plan (docs/api-contract.md "Rate limits"); enterprise has no plan budget. */
export const PLAN_BUDGETS: Record<Plan, number | null> = { free: 60, pro: 600, enterprise: null };

/**
 * The web console's budgets per account and minute, whatever its plan (docs/api-contract.md "Rate
 * limits"): a person clicking through pages (a few calls each, one page a second at most) stays far
 * below them, a script replaying the ID token is held to them. Counted apart from every key's budget.
 */
export const CONSOLE_BUDGET = 600;
export const CONSOLE_CLASS_BUDGETS: Record<RateClass, number> = {
  read: 600,
  standard: 100,
  write: 120,
  expensive: 30,
};

const WINDOW_SECONDS = 60;
const TABLE = 'rate_limits';

/** Where a budget's answer headers go: an Express response, or the headers of a refused WebSocket upgrade. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

interface Outcome {
  limit: number;
  res: RateLimiterRes;
  allowed: boolean;
}

/**
 * Per-account-and-environment budgets in PostgreSQL, so every API instance shares the same counters:
 * the plan budget and the operation-class budget are both consumed; the response headers report the
 * tighter of the two, and a 429 names the one that ran out.
 */
export class RateLimits {
  private readonly planLimiters = new Map<Plan, RateLimiterPostgres>();
  private readonly classLimiters = new Map<RateClass, RateLimiterPostgres>();
  private readonly anonymous: RateLimiterPostgres;
  private readonly consoleLimiter: RateLimiterPostgres;
  private readonly consoleClassLimiters = new Map<RateClass, RateLimiterPostgres>();

  constructor(
    knex: Knex,
    private readonly enabled: boolean,
    anonymousPerMinute: number,
  ) {
    const make = (keyPrefix: string, points: number) =>
      new RateLimiterPostgres({
        storeClient: knex,
        storeType: 'knex',
        tableName: TABLE,
        tableCreated: true,
        keyPrefix,
        points,
        duration: WINDOW_SECONDS,
      });
    for (const [plan, points] of Object.entries(PLAN_BUDGETS) as [Plan, number | null][]) {
      if (points !== null) this.planLimiters.set(plan, make(`plan-${plan}`, points));
    }
    for (const [cls, points] of Object.entries(RATE_CLASSES) as [RateClass, number][]) {
      this.classLimiters.set(cls, make(`class-${cls}`, points));
    }
    this.anonymous = make('anon', anonymousPerMinute);
    this.consoleLimiter = make('console', CONSOLE_BUDGET);
    for (const [cls, points] of Object.entries(CONSOLE_CLASS_BUDGETS) as [RateClass, number][]) {
      this.consoleClassLimiters.set(cls, make(`console-${cls}`, points));
    }
  }

  /** Consumes one request of the account's web console (its own budgets); sets headers; throws 429 when over. */
  async consumeConsole(res: Response, accountId: string, rateClass: RateClass): Promise<void> {
    if (!this.enabled) return;
    const checked = await Promise.all([
      consumeOne(res, this.consoleClassLimiters.get(rateClass)!, `${accountId}:${rateClass}`),
      consumeOne(res, this.consoleLimiter, accountId),
    ]);
    const blocked = checked.find((o) => !o.allowed);
    setHeaders(
      res,
      blocked ?? (checked[0].res.remainingPoints < checked[1].res.remainingPoints ? checked[0] : checked[1]),
    );
    if (blocked) {
      const which = blocked === checked[0] ? `${rateClass} operations from the console` : 'the console';
      throw tooMany(res, blocked, `Rate limit exceeded: ${blocked.limit} requests per minute for ${which}`);
    }
  }

  /** Consumes one request for `subject` (account + environment); sets headers; throws 429 when over. */
  async consume(res: Response, subject: string, plan: Plan, rateClass: RateClass): Promise<void> {
    if (!this.enabled) return;
    const classLimiter = this.classLimiters.get(rateClass)!;
    const planLimiter = this.planLimiters.get(plan);
    const outcomes = await Promise.all([
      consumeOne(res, classLimiter, `${subject}:${rateClass}`),
      planLimiter ? consumeOne(res, planLimiter, subject) : undefined,
    ]);
    const checked = outcomes.filter((o): o is Outcome => o !== undefined);
    const blocked = checked.find((o) => !o.allowed);
    const reported =
      blocked ?? checked.reduce((a, b) => (b.res.remainingPoints < a.res.remainingPoints ? b : a));
    setHeaders(res, reported);
    if (blocked) {
      const which = blocked === checked[0] ? `${rateClass} operations` : `the ${plan} plan`;
      throw tooMany(res, blocked, `Rate limit exceeded: ${blocked.limit} requests per minute for ${which}`);
    }
  }

  /**
   * Spends one request of `rateClass` outside an HTTP request (a live stream's turn): the budgets the
   * same request would spend on the REST API (the console's for a console call, else the plan's and
   * the class's of the account's environment), answered instead of thrown. A store that does not
   * answer is a 503.
   */
  async spend(
    payer: { accountId: string; environment: string; console?: boolean },
    plan: Plan,
    rateClass: RateClass,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number; message: string }> {
    if (!this.enabled) return { allowed: true };
    const subject = `${payer.accountId}:${payer.environment}`;
    const planLimiter = this.planLimiters.get(plan);
    const budgets: [RateLimiterPostgres, string, string][] = payer.console
      ? [
          [
            this.consoleClassLimiters.get(rateClass)!,
            `${payer.accountId}:${rateClass}`,
            `${rateClass} operations from the console`,
          ],
          [this.consoleLimiter, payer.accountId, 'the console'],
        ]
      : [
          [this.classLimiters.get(rateClass)!, `${subject}:${rateClass}`, `${rateClass} operations`],
          ...(planLimiter
            ? [[planLimiter, subject, `the ${plan} plan`] as [RateLimiterPostgres, string, string]]
            : []),
        ];
    const outcomes = await Promise.all(budgets.map(([limiter, key]) => consumeOne(undefined, limiter, key)));
    const blocked = outcomes.findIndex((o) => !o.allowed);
    if (blocked < 0) return { allowed: true };
    const { limit, res } = outcomes[blocked];
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      message: `Rate limit exceeded: ${limit} requests per minute for ${budgets[blocked][2]}`,
    };
  }

  /** A small budget per client address for requests that failed authentication (key guessing). */
  async consumeAnonymous(res: HeaderSink, address: string): Promise<void> {
    if (!this.enabled) return;
    const outcome = await consumeOne(res, this.anonymous, address);
    setHeaders(res, outcome);
    if (!outcome.allowed) {
      throw tooMany(res, outcome, 'Too many unauthenticated requests from this address');
    }
  }
}

/** The store is given this long; past it (a locked table, say) the request is a 503, not a wait. */
export const STORE_TIMEOUT_MS = 2000;
/** Seconds a client is asked to wait when the store did not answer. */
const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * Consumes one point. A store that fails or does not answer within STORE_TIMEOUT_MS makes the request
 * a 503 SERVICE_UNAVAILABLE with Retry-After: never a 500, never an unbounded wait, never a free pass.
 */
async function consumeOne(
  res: HeaderSink | undefined,
  limiter: RateLimiterPostgres,
  key: string,
): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS);
  });
  try {
    return { limit: limiter.points, res: await Promise.race([limiter.consume(key), late]), allowed: true };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { limit: limiter.points, res: rejection, allowed: false };
    res?.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    throw new ApiError(
      503,
      'SERVICE_UNAVAILABLE',
      'The database is unavailable (its rate-limit counters did not answer); retry shortly',
    );
  } finally {
    clearTimeout(timer);
  }
}

function setHeaders(res: HeaderSink, { limit, res: outcome }: Outcome): void {
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, outcome.remainingPoints)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + outcome.msBeforeNext) / 1000)));
}

function tooMany(res: HeaderSink, outcome: Outcome, message: string): ApiError {
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(outcome.res.msBeforeNext / 1000))));
  return new ApiError(429, 'RATE_LIMIT_EXCEEDED', message);
}
