import { RequestContext } from '@mikro-orm/postgresql';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { mountAccountRoutes } from '../accounts/accounts.routes';
import { mountAdminRoutes } from '../admin/admin.routes';
import { type AdminAuth, adminAuthenticator } from '../auth/admin-auth';
import { type ConsoleAuth, consoleAuthenticator } from '../auth/console-auth';
import {
  authenticateMarketplacePublisher,
  authenticateMarketplaceUser,
  type MarketplacePublisher,
  type MarketplaceUser,
} from '../auth/marketplace-auth';
import { type PlatformAuth, platformAuthenticator, requireScope } from '../auth/platform-auth';
import { newId } from '../common/ids';
import { mountDocs } from '../docs/docs.routes';
import { mountEventRoutes } from '../events/events.routes';
import { mountHealth } from '../health/health.routes';
import { ApiRoot } from '../http/api-router';
import { ApiError } from '../http/errors';
import { OpenApiRegistry } from '../http/openapi';
import { mountKeyRoutes } from '../keys/keys.routes';
import { mountMcpServerRoutes } from '../mcp/mcp.routes';
import { mountOAuthCallback, mountOAuthRoutes } from '../oauth/oauth.routes';
import { mountSecretRoutes } from '../secrets/secrets.routes';
import { mountToolRoutes } from '../tools/tools.routes';
import { mountWebhookRoutes } from '../webhooks/webhooks.routes';
import { mountWorkflowRoutes } from '../workflows/workflows.routes';
import type { AppContext } from './context';

export const API_ROOTS = {
  platform: '/api/v2/developers',
  console: '/api/v1/developers',
  marketplace: '/api/marketplace',
  admin: '/api/admin',
} as const;

/** The API roots, so feature modules can add routes to them. */
export interface ApiRoots {
  platform: ApiRoot<PlatformAuth>;
  /** Platform routes without an API key (the OAuth redirect target), limited per address. */
  platformPublic: ApiRoot<null>;
  console: ApiRoot<ConsoleAuth>;
  marketplaceUser: ApiRoot<MarketplaceUser>;
  marketplacePublisher: ApiRoot<MarketplacePublisher>;
  admin: ApiRoot<AdminAuth>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** One Express app serving every API root of DESIGN.md, plus health, OpenAPI and docs. */
export function createApp(ctx: AppContext): { app: Express; registry: OpenApiRegistry; roots: ApiRoots } {
  const app = express();
  const registry = new OpenApiRegistry();
  app.disable('x-powered-by');
  app.set('etag', false); // API responses are dynamic; no client does conditional GETs on them
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');

  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newId('req', 20);
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      ctx.logger.info(
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
  app.use(express.json({ limit: '1mb', strict: true }));

  mountHealth(app, ctx);
  mountDocs(app, registry, { temporalUiUrl: ctx.temporalUiUrl });

  const limitAnonymous = (req: Request, res: Response) =>
    ctx.rateLimits.consumeAnonymous(res, req.ip ?? 'unknown');
  const roots: ApiRoots = {
    platform: new ApiRoot<PlatformAuth>(
      {
        basePath: API_ROOTS.platform,
        tag: 'Platform API v2',
        security: 'apiKey',
        authenticate: platformAuthenticator(ctx),
        limit: (_req, res, auth, rateClass) =>
          ctx.rateLimits.consume(res, `${auth.accountId}:${auth.environment}`, auth.plan, rateClass),
        limitAnonymous,
        authorize: requireScope,
      },
      registry,
    ),
    platformPublic: new ApiRoot<null>(
      {
        basePath: API_ROOTS.platform,
        tag: 'Platform API v2',
        authenticate: () => null,
        limit: (req, res) => ctx.rateLimits.consumeAnonymous(res, req.ip ?? 'unknown'),
      },
      registry,
    ),
    console: new ApiRoot<ConsoleAuth>(
      {
        basePath: API_ROOTS.console,
        tag: 'Console API v1',
        security: 'idToken',
        authenticate: consoleAuthenticator(ctx),
        limit: (_req, res, auth, rateClass) =>
          ctx.rateLimits.consume(res, `${auth.account.id}:console`, auth.account.plan, rateClass),
        limitAnonymous,
      },
      registry,
    ),
    marketplaceUser: new ApiRoot<MarketplaceUser>(
      {
        basePath: API_ROOTS.marketplace,
        tag: 'Marketplace',
        security: 'marketplaceUser',
        authenticate: authenticateMarketplaceUser,
      },
      registry,
    ),
    marketplacePublisher: new ApiRoot<MarketplacePublisher>(
      {
        basePath: API_ROOTS.marketplace,
        tag: 'Marketplace',
        security: 'marketplacePublisher',
        authenticate: authenticateMarketplacePublisher,
      },
      registry,
    ),
    admin: new ApiRoot<AdminAuth>(
      {
        basePath: API_ROOTS.admin,
        tag: 'Operators',
        security: 'adminToken',
        authenticate: adminAuthenticator(ctx.config.adminToken),
        limitAnonymous,
      },
      registry,
    ),
  };

  mountAccountRoutes(roots.console);
  mountKeyRoutes(roots.console, ctx);
  mountSecretRoutes(roots.platform, ctx);
  mountWebhookRoutes(roots.platform, ctx);
  mountEventRoutes(roots.platform, ctx);
  mountOAuthRoutes(roots.platform, ctx);
  mountOAuthCallback(roots.platformPublic, ctx);
  mountMcpServerRoutes(roots.platform, ctx);
  mountToolRoutes(roots.platform, ctx);
  mountWorkflowRoutes(roots.platform, ctx);
  mountAdminRoutes(roots.admin, ctx);

  app.use(API_ROOTS.platform, roots.platformPublic.router, roots.platform.router);
  app.use(API_ROOTS.console, roots.console.router);
  app.use(API_ROOTS.marketplace, roots.marketplaceUser.router, roots.marketplacePublisher.router);
  app.use(API_ROOTS.admin, roots.admin.router);

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError(404, 'NOT_FOUND', `No route for ${req.method} ${req.path}`));
  });
  app.use(errorHandler(ctx));
  return { app, registry, roots };
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Every error leaves as the DESIGN.md error body; a 500 is logged with its stack and never shows it. */
function errorHandler(ctx: AppContext) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    let apiError: ApiError;
    const parserError = error as BodyParserError;
    if (error instanceof ApiError) {
      apiError = error;
    } else if (parserError?.type === 'entity.too.large') {
      apiError = new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body exceeds the 1 MiB limit');
    } else if (parserError?.type === 'entity.parse.failed') {
      apiError = new ApiError(400, 'VALIDATION_FAILED', 'Malformed JSON in request body', [
        `body: ${parserError.message}`,
      ]);
    } else if (parserError?.status && parserError.status >= 400 && parserError.status < 500) {
      apiError = new ApiError(parserError.status, 'VALIDATION_FAILED', parserError.message);
    } else {
      ctx.logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'unhandled error');
      apiError = new ApiError(500, 'INTERNAL', `Internal error (request id ${res.locals.requestId})`);
    }
    if (res.headersSent) return;
    res.status(apiError.status).json(apiError.toBody());
  };
}
