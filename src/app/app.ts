import { isUtf8 } from 'node:buffer';
import { RequestContext } from '@mikro-orm/postgresql';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { RetryableRefusal } from '../auth/refused-credentials';
import type { AppContext } from '../common/context';
import { newId } from '../common/ids';
import { mountConsole } from '../console-web/serve';
import { mountDocs } from '../docs/docs.routes';
import { mountHealth } from '../health/health.routes';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseUnavailable,
  isDatabaseUnavailable,
} from '../http/database-unavailable';
import { ApiError, validationFailed } from '../http/errors';
import { OpenApiRegistry } from '../http/openapi';
import { checkResponses } from '../http/response-check';
import { jsonNestingExceeds, MAX_JSON_DEPTH } from '../http/validation';
import { isKnowledgeUpload } from '../knowledge';
import type { SessionStreams } from '../sessions';
import { httpTelemetry } from '../telemetry/http';
import { TELEPHONY_ROOT, telephonyWebhooks } from '../telephony';
import { exportQueueMetrics } from '../temporal/queue-metrics';
import { queuesToServe, WORKLOADS } from '../temporal/task-queues';
import { API_ROOTS, type ApiRoots, createApiRoots } from './api-roots';
import { mountAreaRoutes } from './routes';
import { streamUpgrades } from './stream-upgrades';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** One Express app serving every API root (docs/api-contract.md "API roots and credentials"), plus health, OpenAPI and docs. */
/** The backlog of every queue this API starts work on, for an autoscaler (operations.md "Scaling signals"). */
function exportEveryQueue(ctx: AppContext): void {
  const { taskQueues, namespace, queueLayout: layout } = ctx.config.temporal;
  const queues = queuesToServe({ layout, taskQueues, workloads: WORKLOADS });
  exportQueueMetrics(ctx.temporal, namespace, queues);
}

export function createApp(ctx: AppContext): {
  app: Express;
  registry: OpenApiRegistry;
  roots: ApiRoots;
  /** The live voice streams (WebSocket upgrades on the same server): give them to listen(). */
  streams: SessionStreams;
} {
  const app = express();
  const registry = new OpenApiRegistry();
  app.disable('x-powered-by');
  app.set('etag', false); // API responses are dynamic; no client does conditional GETs on them
  // X-Forwarded-For only from the proxies TRUST_PROXY names: from anyone else it is the client's word
  app.set('trust proxy', ctx.config.trustProxy.length ? ctx.config.trustProxy : false);

  app.use(httpTelemetry); // a span and the request metrics for every request, whatever answers it
  // the request log's fields are the request's id, method, path, status and duration, never a
  // credential: its logger skips the redaction pass every other log line gets (a tenth of the
  // authenticated read's throughput on bench:api)
  const requestLog = ctx.logger.child({}, { redact: { paths: [] } });
  exportEveryQueue(ctx);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newId('req', 20);
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.locals.startedAt = started; // console analytics: latency from arrival
    res.on('finish', () => {
      requestLog.info(
        {
          requestId: id,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  });
  app.use((_req, _res, next) => RequestContext.create(ctx.orm.em, next));
  // Path ids reach handlers decoded; refuse NUL here so no route, with or without a params schema, passes one on
  app.use((req: Request, _res: Response, next: NextFunction) => {
    if (/%00/i.test(req.path)) {
      return next(validationFailed(['path: must not contain NUL characters'], 'Invalid request path'));
    }
    next();
  });
  app.use(answerOptions);
  // the carriers' webhooks are form-encoded and signed by the carrier (before the JSON-only rule)
  app.use(TELEPHONY_ROOT, telephonyWebhooks(ctx));
  app.use(markKnowledgeUploads, refuseForeignBodies);
  app.use(
    express.json({
      limit: '1mb',
      strict: true,
      // nesting is bounded before parsing: deep bodies would overflow the stack of every recursive consumer
      verify: (_req, _res, buf, encoding) => {
        // bytes that are not UTF-8 would be decoded to U+FFFD and stored so: refused instead
        if (/^utf-?8$/i.test(encoding) && !isUtf8(buf)) {
          throw validationFailed(['body: is not valid UTF-8'], 'JSON body is not valid UTF-8');
        }
        const bytes = /^utf-?8$/i.test(encoding) ? buf : Buffer.from(new TextDecoder(encoding).decode(buf));
        if (jsonNestingExceeds(bytes, MAX_JSON_DEPTH)) {
          throw validationFailed(
            [`body: nests deeper than ${MAX_JSON_DEPTH} levels`],
            `JSON body nests deeper than ${MAX_JSON_DEPTH} levels`,
          );
        }
      },
    }),
  );

  if (ctx.config.env === 'test') app.use('/api', checkResponses());
  mountHealth(app, ctx);
  mountDocs(app, registry, { temporalUiUrl: ctx.temporalUiUrl });
  mountConsole(app, ctx);

  const roots = createApiRoots(ctx, registry);
  mountAreaRoutes(roots, ctx);

  app.use(API_ROOTS.platform, roots.platformPublic.router, roots.platform.router);
  app.use(API_ROOTS.console, roots.console.router);
  app.use(
    API_ROOTS.marketplace,
    roots.marketplacePublic.router,
    roots.marketplaceUser.router,
    roots.marketplacePublisher.router,
  );
  // the review routes (ADMIN_TOKEN or a reviewer's ID token) after the operator-only ones
  app.use(API_ROOTS.admin, roots.admin.router, roots.reviews.router);

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError(404, 'NOT_FOUND', `No route for ${req.method} ${req.path}`));
  });
  app.use(errorHandler(ctx));
  return { app, registry, roots, streams: streamUpgrades(ctx) };
}

/**
 * A knowledge base's file upload (multipart/form-data, the one body that is not JSON) is read by its
 * route after authentication (src/knowledge/uploads.ts): its body reads `{type: 'file'}` until then.
 */
function markKnowledgeUploads(req: Request, _res: Response, next: NextFunction) {
  if (isKnowledgeUpload(req)) req.body = { type: 'file' };
  next();
}

/**
 * A body is JSON (`Content-Type: application/json`) in UTF-8 (RFC 8259), or it is a 415, before
 * anything reads it, on every route: express.json leaves a body of another type unread, and the
 * route would take it for no body at all (an update that changes nothing, answered 200). A chunked
 * body without a Content-Type passes (Node's own client sends an empty POST so): it stays unread.
 */
function refuseForeignBodies(req: Request, _res: Response, next: NextFunction) {
  const chunked = req.headers['transfer-encoding'] !== undefined;
  const sized = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0';
  const type = req.headers['content-type'] ?? '';
  if (!(sized || (chunked && type))) return next();
  if (isKnowledgeUpload(req)) return next();
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1];
  if (charset !== undefined && !/^utf-8$/i.test(charset) && /^[^;]*json/i.test(type)) {
    const message = `JSON bodies must be UTF-8 (Content-Type charset "${charset.slice(0, 40)}")`;
    return next(new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', message));
  }
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    const sent = type ? `"${type.slice(0, 60)}"` : 'none';
    const message = `Request bodies must be JSON (Content-Type: application/json; got ${sent})`;
    return next(new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', message));
  }
  next();
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Every error leaves as the error body of docs/api-contract.md "Errors"; a 500 is logged with its stack and never shows it. */
function errorHandler(ctx: AppContext) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    let apiError: ApiError;
    const parserError = error as BodyParserError;
    if (error instanceof ApiError) {
      apiError = error;
      if (error instanceof RetryableRefusal && !res.headersSent)
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
    } else if (isDatabaseUnavailable(error)) {
      ctx.logger.warn(
        { err: error, requestId: res.locals.requestId, path: req.path },
        'database unavailable',
      );
      apiError = databaseUnavailable();
      if (!res.headersSent) res.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    } else if (parserError?.type === 'entity.too.large') {
      apiError = new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body exceeds the 1 MiB limit');
    } else if (parserError?.type === 'entity.parse.failed') {
      apiError = new ApiError(400, 'VALIDATION_FAILED', 'Malformed JSON in request body', [
        `body: ${parserError.message}`,
      ]);
    } else if (parserError?.type === 'charset.unsupported' || parserError?.type === 'encoding.unsupported') {
      apiError = new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', parserError.message);
    } else if (parserError?.status && parserError.status >= 400 && parserError.status < 500) {
      apiError = new ApiError(parserError.status, 'VALIDATION_FAILED', parserError.message);
    } else {
      ctx.logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'unhandled error');
      apiError = new ApiError(500, 'INTERNAL', `Internal error (request id ${res.locals.requestId})`);
    }
    if (res.headersSent) return;
    res.locals.errorCode = apiError.code; // console analytics
    res.locals.errorMessage = apiError.message;
    res.status(apiError.status).json(apiError.toBody());
  };
}

interface RouterLayer {
  match(path: string): false | { path: string };
  route?: { _methods(): string[] };
  handle?: { stack?: RouterLayer[] };
}

/** Methods the app routes for `path`, walking the Express router and every router mounted in it. */
function routedMethods(stack: RouterLayer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    const matched = layer.match(path);
    if (!matched) continue;
    if (layer.route) {
      for (const method of layer.route._methods()) into.add(method);
    } else if (layer.handle?.stack) {
      routedMethods(layer.handle.stack, path.slice(matched.path.length) || '/', into);
    }
  }
}

/**
 * `OPTIONS` on a routed path: 204 with `Allow` naming its methods, instead of Express's plain-text
 * default; no CORS headers. An unrouted path goes on to the JSON 404.
 */
function answerOptions(req: Request, res: Response, next: NextFunction): void {
  const methods = new Set<string>();
  if (req.method === 'OPTIONS') {
    const router = (req.app as unknown as { router?: { stack?: RouterLayer[] } }).router;
    routedMethods(router?.stack ?? [], req.path, methods);
  }
  if (methods.size === 0) {
    next();
    return;
  }
  methods.add('OPTIONS');
  res.setHeader('Allow', [...methods].sort().join(', '));
  res.status(204).end();
}
