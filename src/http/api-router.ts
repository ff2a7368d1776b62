import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import type { Owner } from '../common/owner';
import {
  IDEMPOTENCY_KEY_HEADER,
  IdempotencyKeyHeaderDoc,
  IdempotencyKeyHeaders,
  type IdempotentRunner,
  ReplayedHeaderDoc,
  type RouteAnswer,
} from '../idempotency/idempotent-request';
import { defaultRateClass, type RateClass } from '../ratelimit/classes';
import { ErrorBodySchema, validationFailed } from './errors';
import { areaTag, type HttpMethod, type OpenApiRegistry } from './openapi';
import { operationIdOf } from './operation-ids';
import { declareResponseSchema } from './response-check';
import { parseOrThrow } from './validation';

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type AnyObject = z.ZodObject;
/** What a handler may return for success schema `S`: its input type, so a wrong shape does not compile. */
type Reply<S extends z.ZodType> = z.input<S>;

export interface HandlerContext<TAuth, B, Q, P, H> {
  auth: TAuth;
  body: Out<B>;
  query: Out<Q>;
  params: Out<P>;
  headers: Out<H>;
  req: Request;
  res: Response;
}

export interface RouteSpec<
  TAuth,
  B extends z.ZodType | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  P extends AnyObject | undefined = undefined,
  H extends AnyObject | undefined = undefined,
  S extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** Express path relative to the API root, e.g. `/keys/:id`. */
  path: string;
  summary: string;
  /** The operation's id when the one its method and path give (src/http/operation-ids.ts) would not do. */
  operationId?: string;
  description?: string;
  /** Platform v2 scope the key must carry, e.g. `secrets:read`. */
  scope?: string;
  /** Operation class for rate limiting; by default GET is read, /test|/execute|/trigger expensive, else write. */
  rateClass?: RateClass;
  body?: B;
  query?: Q;
  params?: P;
  headers?: H;
  /**
   * Status of a successful answer (default 200) and its body schema: the handler's return type is
   * the schema's input type, and under test every answer is parsed against it (see response-check).
   */
  success: {
    status?: number;
    description: string;
    schema: S;
    /** Other success statuses the handler sets (`res.status`), with the same schema: status → when. */
    also?: Record<number, string>;
  };
  /**
   * A create route: honours `Idempotency-Key` (docs/api-contract.md "Idempotent requests") on a root
   * that has `idempotency`.
   */
  idempotent?: boolean;
  handler: (ctx: HandlerContext<TAuth, B, Q, P, H>) => Promise<Reply<S>> | Reply<S>;
}

export interface ApiRootOptions<TAuth> {
  /** Mount path, e.g. `/api/v2/developers`. */
  basePath: string;
  /** Human name of the root, e.g. `Platform API v2` (OpenAPI tag descriptions). */
  name: string;
  /** One OpenAPI tag for every route of this root; by default each route is tagged by its area. */
  tag?: string;
  /** Name of the OpenAPI security scheme; omit for public routes. */
  security?: string;
  /** What names this root's operation ids (`console`, `marketplace`, `admin`); none for the platform API. */
  operationPrefix?: string;
  /** Resolves the caller or throws a 401 ApiError. */
  authenticate: (req: Request, res: Response) => Promise<TAuth> | TAuth;
  /** Applies the caller's rate limits (sets X-RateLimit-*; throws 429). */
  limit?: (req: Request, res: Response, auth: TAuth, rateClass: RateClass) => Promise<void>;
  /** Rate limits a request whose authentication failed (by address), before the 401 is sent. */
  limitAnonymous?: (req: Request, res: Response) => Promise<void>;
  /** Checks the caller may use the route (scopes); throws a 403 ApiError. */
  authorize?: (auth: TAuth, scope: string | undefined) => void;
  /**
   * Called once the caller is known, before rate limits, with the route template (base path
   * included), e.g. to count the call when its answer is sent (console analytics).
   */
  observe?: (req: Request, res: Response, auth: TAuth, route: string) => void;
  /** Runs the handler of an `idempotent` route under its Idempotency-Key, in the caller's account and environment. */
  idempotency?: TAuth extends Owner ? IdempotentRunner : never;
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorBodySchema } },
});

/**
 * One API root (platform, console, marketplace, admin). Every route goes through the same pipeline:
 * authenticate → rate limit → authorize → validate params, query, headers and body → (on an
 * `idempotent` route with an Idempotency-Key: claim the key, or replay its answer) → handler, and is
 * documented in the OpenAPI registry from the very zod schemas that validate it.
 */
/** The query of a route that declares none: nothing may be sent. */
const NO_QUERY = z.strictObject({});

/** The body of a route that declares none: absent, or an empty JSON object. */
function refuseBody(body: unknown): undefined {
  const empty =
    body === undefined ||
    (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
  if (!empty)
    throw validationFailed(
      ['body: this route takes no body'],
      'Invalid request body: this route takes no body',
    );
  return undefined;
}

export class ApiRoot<TAuth> {
  readonly router: Router = express.Router({ mergeParams: false });

  constructor(
    private readonly options: ApiRootOptions<TAuth>,
    private readonly registry: OpenApiRegistry,
  ) {}

  route<
    B extends z.ZodType | undefined = undefined,
    Q extends AnyObject | undefined = undefined,
    P extends AnyObject | undefined = undefined,
    H extends AnyObject | undefined = undefined,
    S extends z.ZodType = z.ZodType,
  >(spec: RouteSpec<TAuth, B, Q, P, H, S>): this {
    const rateClass = spec.rateClass ?? defaultRateClass(spec.method, spec.path);
    const successStatus = spec.success.status ?? 200;
    const { authenticate, limit, limitAnonymous, authorize, observe } = this.options;
    const routeTemplate = this.options.basePath + spec.path;
    const idempotency = spec.idempotent
      ? (this.options.idempotency as IdempotentRunner | undefined)
      : undefined;

    this.router[spec.method](spec.path, async (req: Request, res: Response) => {
      res.locals.route = routeTemplate; // metrics and traces label requests by route template
      let auth: TAuth;
      try {
        auth = await authenticate(req, res);
      } catch (error) {
        if (limitAnonymous) await limitAnonymous(req, res);
        throw error;
      }
      observe?.(req, res, auth, routeTemplate);
      if (limit) await limit(req, res, auth, rateClass);
      authorize?.(auth, spec.scope);
      const ctx: HandlerContext<TAuth, B, Q, P, H> = {
        auth,
        params: (spec.params ? parseOrThrow(spec.params, req.params, 'params') : req.params) as Out<P>,
        // a route that takes no query or body still checks them: unknown fields and NUL are a 400
        query: parseOrThrow(spec.query ?? NO_QUERY, req.query, 'query') as Out<Q>,
        headers: (spec.headers ? parseOrThrow(spec.headers, req.headers, 'headers') : undefined) as Out<H>,
        body: (spec.body ? parseOrThrow(spec.body, req.body ?? {}, 'body') : refuseBody(req.body)) as Out<B>,
        req,
        res,
      };
      const idempotencyKey = idempotency
        ? parseOrThrow(IdempotencyKeyHeaders, req.headers, 'headers')[IDEMPOTENCY_KEY_HEADER]
        : undefined;
      declareResponseSchema(res, spec.success.schema);
      const run = async (): Promise<RouteAnswer | undefined> => {
        const body = await spec.handler(ctx);
        if (res.headersSent) return undefined;
        return { status: res.statusCode === 200 ? successStatus : res.statusCode, body };
      };
      const answer =
        idempotency && idempotencyKey !== undefined
          ? await idempotency(req, res, auth as Owner, idempotencyKey, run)
          : await run();
      if (answer) res.status(answer.status).json(answer.body);
    });

    this.registry.add(
      spec.method,
      this.options.basePath + spec.path,
      this.operation(spec, rateClass, successStatus),
      `${this.options.name} (\`${this.options.basePath}\`)`,
    );
    return this;
  }

  private operation(
    spec: RouteSpec<
      TAuth,
      z.ZodType | undefined,
      AnyObject | undefined,
      AnyObject | undefined,
      AnyObject | undefined,
      z.ZodType
    >,
    rateClass: RateClass,
    successStatus: number,
  ): ZodOpenApiOperationObject {
    const idempotent = spec.idempotent === true && this.options.idempotency !== undefined;
    const responses: ZodOpenApiResponsesObject = {
      [String(successStatus)]: {
        description: spec.success.description,
        content: { 'application/json': { schema: spec.success.schema } },
        ...(idempotent ? { headers: ReplayedHeaderDoc } : {}),
      },
      '400': errorResponse('Invalid body, query, path or headers (`VALIDATION_FAILED`, names every field)'),
    };
    for (const [status, description] of Object.entries(spec.success.also ?? {})) {
      responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = {
        description,
        content: { 'application/json': { schema: spec.success.schema } },
      };
    }
    if (this.options.security) {
      responses['401'] = errorResponse('Missing or invalid credentials (`UNAUTHORIZED`)');
      responses['403'] = errorResponse('Missing scope (`FORBIDDEN`) or plan limit (`PLAN_LIMIT_REACHED`)');
    }
    if (spec.params) responses['404'] = errorResponse('No such resource for this account (`NOT_FOUND`)');
    if (this.options.limit) responses['429'] = errorResponse('Rate limit exceeded (`RATE_LIMIT_EXCEEDED`)');
    if (idempotent) {
      responses['409'] ??= errorResponse(
        'The Idempotency-Key was used with another request, or its first request is in progress (`CONFLICT`)',
      );
    }

    const header = idempotent
      ? (spec.headers ?? z.object({})).extend(IdempotencyKeyHeaderDoc.shape)
      : spec.headers;
    const notes = [
      spec.description,
      spec.scope ? `Scope: \`${spec.scope}\`.` : undefined,
      this.options.limit ? `Rate-limit class: \`${rateClass}\`.` : undefined,
    ].filter(Boolean);
    return {
      operationId: spec.operationId ?? operationIdOf(spec.method, spec.path, this.options.operationPrefix),
      tags: [this.options.tag ?? areaTag(spec.path)],
      summary: spec.summary,
      description: notes.length ? notes.join('\n\n') : undefined,
      // a public route says so: an empty list (it authenticates otherwise: a signed link, OAuth's state)
      security: this.options.security ? [{ [this.options.security]: [] }] : [],
      requestParams: {
        ...(spec.params ? { path: spec.params } : {}),
        ...(spec.query ? { query: spec.query } : {}),
        ...(header ? { header } : {}),
      },
      ...(spec.body ? { requestBody: { content: { 'application/json': { schema: spec.body } } } } : {}),
      responses,
    };
  }
}
